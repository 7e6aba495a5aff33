package status

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pgseq/pgseq/internal/textfmt"
)

// RenderOptions control Render.
type RenderOptions struct {
	// Color marks problems (binding limits, draining, late and dead workers,
	// an expired lease) with ANSI colours: for a terminal, never with NO_COLOR.
	Color bool
}

// Render writes the snapshot for people: one table per section. It reads
// no clock of its own (ages are the snapshot's), so the same snapshot
// always renders the same text.
func Render(w io.Writer, s *Snapshot, o RenderOptions) error {
	p := &printer{color: o.Color}
	p.header(s)
	p.queues(s)
	p.limits(s)
	p.partitions(s)
	p.workers(s)
	p.leader(s)
	p.counters(s)
	p.legend(s)
	_, err := io.WriteString(w, p.b.String())
	return err
}

type printer struct {
	b       strings.Builder
	color   bool
	inexact bool // some count shown is a lower bound
	est     bool // some estimate is shown
}

// ANSI styles.
const (
	bold   = "1"
	red    = "31"
	yellow = "33"
)

func (p *printer) style(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *printer) line(format string, args ...any) {
	fmt.Fprintf(&p.b, format, args...)
	p.b.WriteByte('\n')
}

func (p *printer) section(title, summary string) {
	p.b.WriteByte('\n')
	if summary != "" {
		p.line("%s  %s", p.style(bold, title), summary)
	} else {
		p.line("%s", p.style(bold, title))
	}
}

func (p *printer) header(s *Snapshot) {
	what := fmt.Sprintf("Schema %q (version %d)", s.Schema, s.SchemaVersion)
	if s.Queue != "" {
		what += fmt.Sprintf(", queue %q", s.Queue)
	}
	p.line("%s at %s", what, s.At.UTC().Format("2006-01-02 15:04:05 MST"))
}

// count shows a count: 1,234 exact; 10,000+ a lower bound, with the
// planner's estimate when there is one (10,000+ ≈1.2M).
func (p *printer) count(c Count) string {
	if c.Exact {
		return textfmt.Thousands(c.Value)
	}
	p.inexact = true
	s := textfmt.Thousands(c.Value) + "+"
	if c.Estimate != nil {
		p.est = true
		s += " ≈" + compact(*c.Estimate)
	}
	return s
}

func (p *printer) queues(s *Snapshot) {
	p.section("QUEUES", "")
	if len(s.Queues) == 0 {
		p.line("  No queue is declared (declare one and run pgseq apply).")
		return
	}
	t := table{right: []bool{false, true, true, true, true, true, true, true, true}}
	t.row("QUEUE", "DUE", "READY", "WAITING", "SCHEDULED", "RUNNING", "FAILED", "DEAD LETTER", "OLDEST DUE")
	for _, q := range s.Queues {
		oldest := "-"
		if q.OldestDue != nil {
			oldest = p.age(*q.OldestDue)
		}
		t.row(q.Name, p.count(q.Due), p.count(q.Ready), p.count(q.Waiting),
			p.count(q.Scheduled), p.count(q.Running), p.count(q.Failed), p.count(q.DeadLetter), oldest)
	}
	t.write(&p.b, "  ", nil)
}

func (p *printer) age(a Age) string {
	s := duration(a.Seconds)
	if !a.Exact {
		p.inexact = true
		s += "+"
	}
	return s
}

func (p *printer) limits(s *Snapshot) {
	p.section("LIMITS", "")
	if len(s.Limits) == 0 {
		p.line("  No task type has a concurrency limit.")
		return
	}
	t := table{right: []bool{false, false, true, true, true, true, true, false}}
	t.row("TASK TYPE", "QUEUE", "RUNNING", "LIMIT", "UNITS USED", "GROUPS", "WAITING", "STATE")
	styles := []string{""}
	for _, l := range s.Limits {
		limit := textfmt.Thousands(l.Limit)
		if l.Limit == 0 {
			limit = "none"
		}
		waiting := p.count(l.Waiting)
		if l.Reserved.Value > 0 {
			waiting += " (+" + p.count(l.Reserved) + " reserved)"
		}
		t.row(l.TaskType, l.Queue, p.count(l.Running), limit,
			textfmt.Thousands(l.Used)+"/"+textfmt.Thousands(l.Capacity), strconv.Itoa(l.SlotGroups), waiting, l.State)
		styles = append(styles, stateStyle(l.State))
	}
	t.write(&p.b, "  ", func(row, col int, cell string) string {
		if col == 7 && styles[row] != "" {
			return p.style(styles[row], cell)
		}
		return cell
	})
	// The types that need a word: why their tasks wait, which groups drain.
	var notes []string
	for _, l := range s.Limits {
		if n := p.limitNote(l); n != "" {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		p.b.WriteByte('\n')
		for _, n := range notes {
			p.line("  %s", n)
		}
	}
}

func stateStyle(state string) string {
	switch state {
	case "binding", "draining", "dead":
		return red
	case "admitting", "late":
		return yellow
	}
	return ""
}

// limitNote explains a limited type's state in a sentence, "" when all is well.
func (p *printer) limitNote(l Limit) string {
	// waiting says how many due tasks wait; oldest for how long.
	waiting, oldest := "", ""
	if l.Waiting.Value > 0 {
		// An estimate ("1+") reads in the plural.
		verb := "due tasks wait"
		if l.Waiting.Exact {
			verb = textfmt.Word(l.Waiting.Value, "due task waits", verb)
		}
		waiting = p.count(l.Waiting) + " " + verb
		if l.OldestWaiting != nil {
			oldest = fmt.Sprintf(" (the oldest for %s)", p.age(*l.OldestWaiting))
		}
	}
	switch l.State {
	case "draining":
		var gs []string
		for _, g := range l.DrainingGroups {
			gs = append(gs, fmt.Sprintf("%d (capacity %d, %d in use)", g.Group, g.Capacity, g.Used))
		}
		within := fmt.Sprintf("within the limit of %s", textfmt.Thousands(l.Limit))
		if l.Limit == 0 {
			within = "released (the type has no limit any more)"
		}
		n := fmt.Sprintf("%s: draining after a lowered limit", p.style(red, l.TaskType))
		switch len(gs) {
		case 0:
		case 1:
			n += ": slot group " + gs[0] + " is over capacity"
		default:
			n += ": slot groups " + strings.Join(gs, ", ") + " are over capacity"
		}
		n += fmt.Sprintf("; it admits nothing until its units in use are %s", within)
		if waiting != "" {
			n += "; " + waiting + oldest
		}
		return n + "."
	case "binding":
		return fmt.Sprintf("%s: the limit binds: all %s in use; %s for one%s.",
			p.style(red, l.TaskType), textfmt.Plural(int(l.Capacity), "unit"), waiting, oldest)
	case "admitting":
		return fmt.Sprintf("%s: %s%s although %s free; the next claim on queue %q or the leader's maintenance admits them.",
			p.style(yellow, l.TaskType), waiting, oldest, textfmt.Count(l.Free, "unit is", "units are"), l.Queue)
	}
	return ""
}

func (p *printer) workers(s *Snapshot) {
	ws := s.Workers
	p.section("WORKERS", fmt.Sprintf("%d alive, %d late, %d dead (timeout %s)", ws.Alive, ws.Late, ws.Dead, duration(ws.TimeoutSeconds)))
	if len(ws.List) == 0 {
		p.line("  No worker is registered.")
		return
	}
	t := table{right: []bool{false, false, true, true, true, false}}
	t.row("WORKER", "HOST", "POOL", "RUNNING", "LAST HEARTBEAT", "STATE")
	styles := []string{""}
	for _, w := range ws.List {
		state := w.State
		if w.Leader {
			state += ", leader"
		}
		t.row(w.ID, w.Hostname, strconv.Itoa(w.PoolSize), textfmt.Thousands(w.Running), duration(w.HeartbeatAgeSeconds)+" ago", state)
		styles = append(styles, stateStyle(w.State))
	}
	t.write(&p.b, "  ", func(row, col int, cell string) string {
		if col == 5 && styles[row] != "" {
			return p.style(styles[row], cell)
		}
		return cell
	})
	listedDead := 0
	for _, w := range ws.List {
		if w.State == "dead" {
			listedDead++
		}
	}
	if more := ws.Dead - listedDead; more > 0 {
		p.line("  (%s not listed: the list holds the %d declared dead most recently)", textfmt.Plural(more, "more dead worker"), listedDead)
	}
}

func (p *printer) leader(s *Snapshot) {
	l := s.Leader
	if l == nil {
		p.section("LEADER", "none elected yet (workers elect one among themselves)")
		return
	}
	var lease string
	switch {
	case l.LeaseLeftSeconds == nil:
		lease = p.style(red, "lease given up")
	case l.Live:
		lease = fmt.Sprintf("lease live, %s left", duration(*l.LeaseLeftSeconds))
	default:
		lease = p.style(red, fmt.Sprintf("lease expired %s ago", duration(-*l.LeaseLeftSeconds)))
	}
	summary := l.WorkerID + ", " + lease
	if l.ElectedAt != nil {
		summary += fmt.Sprintf(", elected %s ago", duration(s.At.Sub(*l.ElectedAt).Seconds()))
	}
	switch l.WorkerState {
	case "":
		summary += "; the worker is no longer registered"
	case "alive":
	default:
		summary += "; the worker is " + p.style(stateStyle(l.WorkerState), l.WorkerState)
	}
	if !l.Live {
		summary += " (the next worker to call elect_leader takes over)"
	}
	p.section("LEADER", summary)
}

func (p *printer) counters(s *Snapshot) {
	if len(s.Counters) == 0 {
		p.section("COUNTERS", "none declared")
		return
	}
	p.section("COUNTERS", "")
	t := table{right: []bool{false, false, true, true, true, false}}
	t.row("COUNTER", "KIND", "SCOPES", "HIGHEST", "PENDING RESERVATIONS", "NUMBERS")
	for _, c := range s.Counters {
		highest := "-"
		if c.Highest != nil {
			highest = p.count(*c.Highest)
		}
		pending := "-"
		if c.TwoPhase || c.PendingReservations.Value > 0 {
			pending = p.count(c.PendingReservations)
			if c.OldestReservation != nil {
				pending += fmt.Sprintf(" (oldest %s ago)", p.age(*c.OldestReservation))
			}
		}
		numbers := ""
		if c.Kind == "attached" {
			numbers = c.Table + "." + c.Column
		}
		t.row(c.Name, c.Kind, p.count(c.Scopes), highest, pending, numbers)
	}
	t.write(&p.b, "  ", nil)
}

func (p *printer) legend(s *Snapshot) {
	if !p.inexact {
		return
	}
	p.b.WriteByte('\n')
	limit := textfmt.Thousands(s.CountLimit)
	p.line("N+: at least N (counts read at most %s index entries)%s.", limit,
		map[bool]string{true: "; ≈: the planner's estimate, from the statistics of the last ANALYZE", false: ""}[p.est])
}

// table aligns columns of cells, separated by two spaces; right[i] aligns
// column i to the right.
type table struct {
	rows  [][]string
	right []bool
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the rows with indent; decorate, when set, styles a padded
// cell (row 0 is the header), so escape codes never upset the widths.
func (t *table) write(b *strings.Builder, indent string, decorate func(row, col int, cell string) string) {
	widths := map[int]int{}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for ri, r := range t.rows {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			last := i == len(r)-1
			cell := c
			if decorate != nil {
				cell = decorate(ri, i, c)
			}
			switch {
			case i < len(t.right) && t.right[i]:
				line.WriteString(pad + cell)
			case last:
				line.WriteString(cell)
			default:
				line.WriteString(cell + pad)
			}
			if !last {
				line.WriteString("  ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

// compact writes an estimate with two significant digits: 950, 48k, 1.2M.
func compact(n int64) string {
	f := float64(n)
	switch {
	case f < 1000:
		return strconv.FormatInt(n, 10)
	case f < 1e6:
		return sig(f/1e3) + "k"
	case f < 1e9:
		return sig(f/1e6) + "M"
	default:
		return sig(f/1e9) + "G"
	}
}

// sig rounds f (≥ 1) to two significant digits, or to a whole number from 10 on.
func sig(f float64) string {
	if f < 10 {
		s := strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64)
		if s == "10.0" {
			return "10"
		}
		return strings.TrimSuffix(s, ".0")
	}
	return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
}

// duration writes seconds as the two largest units: 45s, 3m12s, 2h5m, 3d4h;
// below a second "0s", and negative (clock skew) as 0s.
func duration(seconds float64) string {
	d := time.Duration(math.Max(seconds, 0) * float64(time.Second))
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return twoUnits(s/60, "m", s%60, "s")
	case s < 86400:
		return twoUnits(s/3600, "h", s%3600/60, "m")
	default:
		return twoUnits(s/86400, "d", s%86400/3600, "h")
	}
}

func twoUnits(a int64, au string, b int64, bu string) string {
	if b == 0 {
		return fmt.Sprintf("%d%s", a, au)
	}
	return fmt.Sprintf("%d%s%d%s", a, au, b, bu)
}

// partitions writes the per-key limits: one row per partitioned type, then
// for each type whose tasks wait for their keys a sentence and the keys
// that have waited longest. Nothing when no type has a per-key limit.
func (p *printer) partitions(s *Snapshot) {
	if len(s.Partitions) == 0 {
		return
	}
	p.section("PER-KEY LIMITS", "")
	t := table{right: []bool{false, false, true, true, true, true, true, false}}
	t.row("TASK TYPE", "QUEUE", "PER KEY", "KEYS", "AT LIMIT", "WAITING", "OLDEST WAIT", "STATE")
	styles := []string{""}
	for _, k := range s.Partitions {
		limit := textfmt.Thousands(k.Limit)
		if k.Limit == 0 {
			limit = "none"
		}
		oldest := "-"
		if k.OldestWaiting != nil {
			oldest = p.age(*k.OldestWaiting)
		}
		t.row(k.TaskType, k.Queue, limit, p.count(k.Keys), p.count(k.AtLimit), p.count(k.Waiting), oldest, k.State)
		styles = append(styles, stateStyle(k.State))
	}
	t.write(&p.b, "  ", func(row, col int, cell string) string {
		if col == 7 && styles[row] != "" {
			return p.style(styles[row], cell)
		}
		return cell
	})
	for _, k := range s.Partitions {
		note := p.partitionNote(k)
		if note == "" {
			continue
		}
		p.b.WriteByte('\n')
		p.line("  %s", note)
		if len(k.LongestWaits) == 0 {
			continue
		}
		w := table{right: []bool{false, true, true, true}}
		w.row("KEY", "UNITS USED", "WAITING", "OLDEST WAIT")
		for _, kw := range k.LongestWaits {
			used := textfmt.Thousands(kw.Used)
			if k.Limit > 0 {
				used += "/" + textfmt.Thousands(k.Limit)
			}
			w.row(keyText(kw.Key), used, p.count(kw.Waiting), p.age(kw.Oldest))
		}
		w.write(&p.b, "    ", nil)
		if k.WaitsCapped {
			p.line("    (the waits of the first %s at their limit, in key order, of %s: a key not probed may have waited longer)",
				textfmt.Plural(k.KeysProbed, "key"), p.count(k.AtLimit))
		}
	}
}

// partitionNote explains a partitioned type's state in a sentence, "" when
// all is well; a type whose tasks wait for their keys ends it with the
// heading of its longest waits.
func (p *printer) partitionNote(k Partition) string {
	name := p.style(stateStyle(k.State), k.TaskType)
	waiting := ""
	if k.Waiting.Value > 0 {
		waiting = p.count(k.Waiting) + " due tasks wait for a unit of their key"
		if k.Waiting.Exact && k.Waiting.Value == 1 {
			waiting = "1 due task waits for a unit of its key"
		}
	}
	var n string
	switch k.State {
	case "draining":
		if k.Limit == 0 {
			n = fmt.Sprintf("%s: no per-key limit any more; %s %s units until their running tasks end",
				name, p.countNoun(k.Keys, "key"), textfmt.Word(k.Keys.Value, "holds", "hold"))
			break
		}
		n = fmt.Sprintf("%s: draining after a lowered per-key limit: %s %s more units than the limit of %s and admit nothing until below it",
			name, p.countNoun(k.OverLimit, "key"), textfmt.Word(k.OverLimit.Value, "holds", "hold"), textfmt.Thousands(k.Limit))
		if waiting != "" {
			n += "; " + waiting
		}
	case "binding":
		n = fmt.Sprintf("%s: %s at the per-key limit of %s; %s",
			name, p.countNoun(k.AtLimit, "key"), textfmt.Thousands(k.Limit), waiting)
	case "admitting":
		n = fmt.Sprintf("%s: %s although no key is at its limit; the next completion or admission of their keys admits them",
			name, waiting)
	default:
		return ""
	}
	if len(k.LongestWaits) > 0 {
		return n + ". Longest waits:"
	}
	return n + "."
}

// countNoun writes a count and a noun in the plural unless it is exactly 1.
func (p *printer) countNoun(c Count, noun string) string {
	if c.Exact && c.Value == 1 {
		return p.count(c) + " " + noun
	}
	return p.count(c) + " " + noun + "s"
}

// maxKeyShown is the longest partition key shown whole, in characters.
const maxKeyShown = 40

// keyText shows a partition key, which is anyone's text: quoted (Go
// syntax, control characters escaped) when it is empty or holds a space or
// a character that is not graphic, and cut to maxKeyShown characters.
func keyText(k string) string {
	r := []rune(k)
	cut := len(r) > maxKeyShown
	if cut {
		r = r[:maxKeyShown]
	}
	s := string(r)
	plain := s != ""
	for _, c := range s {
		if !unicode.IsGraphic(c) || unicode.IsSpace(c) || c == '"' {
			plain = false
			break
		}
	}
	if !plain {
		s = strconv.Quote(s)
	}
	if cut {
		s += "…"
	}
	return s
}
