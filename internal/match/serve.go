package match

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/viewer"
)

// ServeConfig sets up a server process.
type ServeConfig struct {
	Model *Model
	Sides Sides
	Setup Setup
	// Conn is the server's bound UDP socket; Serve owns it.
	Conn transport.PacketConn
	// Server configures netcode (key, protocol id, public address, slots).
	Server udpdrive.ServerConfig
	// Viewer, when set, shows the host's views (if its model has any) and
	// figures.
	Viewer *viewer.Server
	// Report logs the figures this often; 0: never.
	Report time.Duration
	// Listening, when set, is called once the netcode server is up (to
	// serve its metrics, say); its error stops Serve, its stop function
	// runs when Serve returns.
	Listening func(*transport.Server) (stop func(), err error)
}

// Serve runs the model's server side until ctx ends or the model stops.
func Serve(ctx context.Context, cfg ServeConfig) (Summary, error) {
	log := cfg.Setup.Logger
	if log == nil {
		log = slog.Default()
		cfg.Setup.Logger = log
	}
	cfg.Setup.Now = time.Now()
	host, err := cfg.Sides.NewHost(cfg.Setup)
	if err != nil {
		cfg.Conn.Close()
		return Summary{}, err
	}
	cfg.Server.Logger = log
	srv, err := udpdrive.NewServer(host, cfg.Conn, cfg.Server)
	if err != nil {
		cfg.Conn.Close()
		return Summary{}, err
	}
	defer srv.Close()
	if cfg.Listening != nil {
		stop, err := cfg.Listening(srv.Transport())
		if err != nil {
			return Summary{}, err
		}
		defer stop()
	}
	slots := srv.Transport().MaxClients()
	meters := make([]meter, slots)
	var hostMeter meter
	start, lastLog := time.Now(), time.Now()
	var (
		figs  []viewer.Figure
		views []viewer.View
	)
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		logNow := cfg.Report > 0 && now.Sub(lastLog) >= cfg.Report
		if cfg.Viewer == nil && !logNow {
			return false, nil
		}
		hostMeter.sample(now, netmodel.Traffic{}, srv.Cost())
		figs = append(host.Figures(now, figs[:0]), viewer.Figure{Name: "server cpu", Value: hostMeter.cpu, Unit: "ms"})
		for slot := range slots {
			if !srv.Joined(slot) {
				continue
			}
			meters[slot].sample(now, srv.Traffic(slot), udpdrive.Cost{})
			figs = meters[slot].figures(figs, fmt.Sprintf("p%d ", slot+1), false)
		}
		if cfg.Viewer != nil {
			views = host.Views(views[:0])
			cfg.Viewer.Publish(viewer.Frame{Views: views, Figures: figs})
		}
		if logNow {
			log.Info("serve", figureAttrs(figs)...)
			lastLog = now
		}
		return false, nil
	}, srv)
	d := time.Since(start)
	s := Summary{Command: "serve", Model: cfg.Model.Name, Duration: d,
		Sections: []Section{{Name: "server", Lines: append(host.Summary(time.Now(), nil), costLine(srv.Cost()))}}}
	for slot := range slots {
		if t := srv.Traffic(slot); t.UpPackets > 0 {
			s.Sections = append(s.Sections, Section{Name: fmt.Sprintf("player %d", slot+1), Lines: trafficLines(nil, t, d)})
		}
	}
	return s, err
}
