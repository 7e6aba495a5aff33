package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves a registry's metrics over HTTP, at /metrics.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Listen listens on addr (host:port; ":9090" listens on every interface,
// "127.0.0.1:0" on a free port of the loopback) and serves g's metrics at
// /metrics, with promhttp, until Shutdown. It binds before returning, so a
// malformed or busy address is its error and nothing is served. A collector
// failing during a scrape does not fail the scrape: the other metrics are
// served.
func Listen(addr string, g prometheus.Gatherer) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "pgseq worker: metrics at /metrics")
	})
	s := &Server{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on (with the port chosen when
// addr asked for port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL returns the address of the metrics page, naming "localhost" when the
// server listens on every interface.
func (s *Server) URL() string {
	host, port, err := net.SplitHostPort(s.ln.Addr().String())
	if err != nil {
		return "http://" + s.ln.Addr().String() + "/metrics"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/metrics"
}

// Shutdown stops the server: no new connections, scrapes in progress finish
// until ctx ends. It returns the serving error, if serving failed, else
// Shutdown's. Calling it again returns nil.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	serveErr, ok := <-s.done
	if !ok {
		return nil
	}
	close(s.done)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}
