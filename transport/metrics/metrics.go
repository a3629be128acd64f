// Package metrics exposes a transport.Server's counters to Prometheus.
// It is apart from package transport so that only the programs that serve
// metrics link the Prometheus client.
//
//	mux.Handle("/metrics", metrics.Handler(srv))
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// serverCollector reads a Server's counters at each scrape, so the hot path
// pays nothing for metrics.
type serverCollector struct {
	s                                        *transport.Server
	packets, bytes, payloads, drops          *prometheus.Desc
	clients, connects, disconnects, timeouts *prometheus.Desc
	denied, challenges, maxClients           *prometheus.Desc
}

// NewServerCollector returns a Prometheus collector of s's counters, named
// netphys_netcode_*.
func NewServerCollector(s *transport.Server) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("netphys_netcode_"+name, help, labels, nil)
	}
	return &serverCollector{
		s:           s,
		packets:     d("packets_total", "Datagrams sent and received by the server.", "direction"),
		bytes:       d("bytes_total", "UDP payload bytes sent and received by the server.", "direction"),
		payloads:    d("payloads_total", "Game payloads sent and delivered.", "direction"),
		drops:       d("dropped_packets_total", "Received datagrams ignored, by reason.", "reason"),
		clients:     d("clients_connected", "Client slots in use."),
		maxClients:  d("max_clients", "Client slots of the server."),
		connects:    d("connects_total", "Clients that took a slot."),
		disconnects: d("disconnects_total", "Slots released, for any reason."),
		timeouts:    d("timeouts_total", "Slots released because the client went silent."),
		denied:      d("denied_total", "Connection requests denied because the server was full."),
		challenges:  d("challenges_total", "Challenge packets sent."),
	}
}

func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.packets, c.bytes, c.payloads, c.drops, c.clients, c.maxClients,
		c.connects, c.disconnects, c.timeouts, c.denied, c.challenges} {
		ch <- d
	}
}

func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(c.packets, st.PacketsSent, "sent")
	counter(c.packets, st.PacketsReceived, "received")
	counter(c.bytes, st.BytesSent, "sent")
	counter(c.bytes, st.BytesReceived, "received")
	counter(c.payloads, st.PayloadsSent, "sent")
	counter(c.payloads, st.PayloadsReceived, "received")
	for r := range netcode.NumDropReasons {
		counter(c.drops, st.Drops[r], r.String())
	}
	counter(c.connects, st.Connects)
	counter(c.disconnects, st.Disconnects)
	counter(c.timeouts, st.TimedOut)
	counter(c.denied, st.DeniedSent)
	counter(c.challenges, st.ChallengesSent)
	ch <- prometheus.MustNewConstMetric(c.clients, prometheus.GaugeValue, float64(st.ClientsConnected))
	ch <- prometheus.MustNewConstMetric(c.maxClients, prometheus.GaugeValue, float64(c.s.MaxClients()))
}

// Handler returns an http.Handler serving s's metrics, plus the Go
// runtime and process collectors, in the Prometheus exposition format.
func Handler(s *transport.Server) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewServerCollector(s), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
