package queue

// heartbeat beats until s.ctx ends; a heartbeat answered false means the
// worker was declared dead: everything in flight is abandoned.
func (s *session) heartbeat() {
	for {
		if !sleep(s.ctx, s.w.Settings().HeartbeatInterval) {
			return
		}
		ctx, cancel := s.call()
		var alive bool
		err := s.w.db.QueryRow(ctx, s.w.sql.heartbeat, s.id).Scan(&alive)
		cancel()
		s.w.noteContact(err)
		if err != nil {
			if s.ctx.Err() == nil {
				s.w.log.Warn("heartbeat failed", "worker", s.id, "error", err)
			}
			continue
		}
		if !alive {
			s.declaredDead()
			return
		}
	}
}

// declaredDead abandons everything in flight and stops the session.
func (s *session) declaredDead() {
	s.mu.Lock()
	s.dead.Store(true)
	for id, t := range s.running {
		t.abandoned = true
		delete(s.running, id)
	}
	clear(s.reserved)
	s.completer.drop()
	s.mu.Unlock()
	s.cancelHandler()
	s.cancel()
}
