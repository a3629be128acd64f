package main

import (
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
)

// manifest reads and parses deploy/name.
func manifest(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../deploy/" + name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := parseYAML(string(b))
	if err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("deploy/%s is not a mapping", name)
	}
	return m
}

// at walks v along path: keys of mappings, [i] of sequences.
func at(t *testing.T, v any, path string) any {
	t.Helper()
	for _, step := range strings.Split(path, ".") {
		var i int
		if _, err := fmt.Sscanf(step, "[%d]", &i); err == nil {
			s, ok := v.([]any)
			if !ok || i >= len(s) {
				t.Fatalf("%s: no item %d", path, i)
			}
			v = s[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is not under a mapping", path, step)
		}
		if v, ok = m[step]; !ok {
			t.Fatalf("%s: no %q", path, step)
		}
	}
	return v
}

func atInt(t *testing.T, v any, path string) int64 {
	t.Helper()
	n, ok := at(t, v, path).(int64)
	if !ok {
		t.Fatalf("%s = %v, not an integer", path, at(t, v, path))
	}
	return n
}

// TestDeployManifests checks deploy/: the GameServer runs `serve --agones`
// with flags serve accepts, on the UDP port it declares, pinging health
// well within the health check's period, with the List its players go to;
// the Fleet runs the same spec; the FleetAutoscaler scales that fleet;
// the Containerfile builds the program and exposes the port.
func TestDeployManifests(t *testing.T) {
	gs := manifest(t, "gameserver.yaml")
	if at(t, gs, "apiVersion") != "agones.dev/v1" || at(t, gs, "kind") != "GameServer" {
		t.Fatalf("gameserver.yaml is a %v %v", at(t, gs, "apiVersion"), at(t, gs, "kind"))
	}
	spec := at(t, gs, "spec")
	get, containerPort := checkServeSpec(t, "gameserver.yaml", spec)

	// The model, its players, their List, the label the allocator selects.
	m, err := match.Lookup(get("model"))
	if err != nil {
		t.Fatal(err)
	}
	var players int
	fmt.Sscan(get("players"), &players)
	if least, most := m.PlayerRange(); players < least || players > most {
		t.Errorf("--model %s --players %d: not a match the model hosts", m.Name, players)
	}
	if l := at(t, gs, "metadata.labels").(map[string]any)[modelLabel]; l != m.Name {
		t.Errorf("label %s %v, serve runs %s", modelLabel, l, m.Name)
	}
	capacity := atInt(t, spec, "lists."+get("agones-players-list")+".capacity")
	var maxClients int64
	fmt.Sscan(get("max-clients"), &maxClients)
	if capacity < maxClients {
		t.Errorf("List %s holds %d players, serve takes %d", get("agones-players-list"), capacity, maxClients)
	}

	// The Fleet runs the very same spec; its labels are the GameServer's.
	fleet := manifest(t, "fleet.yaml")
	if at(t, fleet, "apiVersion") != "agones.dev/v1" || at(t, fleet, "kind") != "Fleet" {
		t.Fatalf("fleet.yaml is a %v %v", at(t, fleet, "apiVersion"), at(t, fleet, "kind"))
	}
	if !reflect.DeepEqual(at(t, fleet, "spec.template.spec"), spec) {
		t.Error("fleet.yaml's template spec differs from gameserver.yaml's spec")
	}
	if !reflect.DeepEqual(at(t, fleet, "spec.template.metadata.labels"), at(t, gs, "metadata.labels")) {
		t.Error("fleet.yaml's template labels differ from gameserver.yaml's")
	}

	fa := manifest(t, "fleetautoscaler.yaml")
	if at(t, fa, "apiVersion") != "autoscaling.agones.dev/v1" || at(t, fa, "kind") != "FleetAutoscaler" {
		t.Fatalf("fleetautoscaler.yaml is a %v %v", at(t, fa, "apiVersion"), at(t, fa, "kind"))
	}
	if at(t, fa, "spec.fleetName") != at(t, fleet, "metadata.name") {
		t.Errorf("the autoscaler scales fleet %v, the fleet is %v", at(t, fa, "spec.fleetName"), at(t, fleet, "metadata.name"))
	}
	buffer, lo, hi := atInt(t, fa, "spec.policy.buffer.bufferSize"), atInt(t, fa, "spec.policy.buffer.minReplicas"), atInt(t, fa, "spec.policy.buffer.maxReplicas")
	if at(t, fa, "spec.policy.type") != "Buffer" || buffer < 1 || lo < buffer || hi < lo {
		t.Errorf("autoscaler buffer %d within %d..%d: want 1 <= buffer <= min <= max", buffer, lo, hi)
	}

	// The Containerfile: the Go of go.mod, a static build of the program,
	// the UDP port, a non-root user.
	cf, err := os.ReadFile("../../deploy/Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	for _, want := range []string{
		"FROM docker.io/library/golang:" + string(goVersion[1]) + " AS build",
		"CGO_ENABLED=0 go build", "./cmd/netphys",
		fmt.Sprintf("EXPOSE %d/udp", containerPort),
		"USER 65532:65532",
		`ENTRYPOINT ["/netphys"]`,
	} {
		if !strings.Contains(string(cf), want) {
			t.Errorf("deploy/Containerfile lacks %q", want)
		}
	}
}

// checkServeSpec checks a GameServer spec (also a Fleet's template) that
// runs `serve --agones`: flags serve accepts, the UDP port it declares,
// health pings well within the health check's period, a drain that ends
// before the pod is killed, the key from a mounted Secret. It returns the
// container's flag values and its port.
func checkServeSpec(t *testing.T, file string, spec any) (get func(string) string, containerPort int64) {
	t.Helper()
	ports := at(t, spec, "ports").([]any)
	if len(ports) != 1 {
		t.Fatalf("%s: %d ports, want the one UDP port", file, len(ports))
	}
	portName := at(t, ports[0], "name")
	containerPort = atInt(t, ports[0], "containerPort")
	if at(t, ports[0], "protocol") != "UDP" || at(t, ports[0], "portPolicy") != "Dynamic" {
		t.Errorf("port: protocol %v policy %v, want UDP Dynamic", at(t, ports[0], "protocol"), at(t, ports[0], "portPolicy"))
	}

	containers := at(t, spec, "template.spec.containers").([]any)
	if len(containers) != 1 || at(t, spec, "container") != at(t, containers[0], "name") {
		t.Fatalf("spec.container %v does not name the one container", at(t, spec, "container"))
	}
	var args []string
	for _, a := range at(t, containers[0], "args").([]any) {
		s, ok := a.(string)
		if !ok {
			t.Fatalf("container arg %v is a %T: Kubernetes wants strings (quote numbers)", a, a)
		}
		args = append(args, s)
	}
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("container args %q: want serve ...", args)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	setupServe(fs)
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		t.Fatalf("serve does not take the container's args %q: %v", args[1:], err)
	}
	get = func(name string) string { return fs.Lookup(name).Value.String() }
	if get("agones") != "true" {
		t.Error("the container's serve lacks --agones")
	}
	listen, err := netip.ParseAddrPort(get("listen"))
	if err != nil || int64(listen.Port()) != containerPort || !listen.Addr().IsUnspecified() {
		t.Errorf("--listen %s: want every address at containerPort %d", get("listen"), containerPort)
	}
	if get("agones-port") != portName {
		t.Errorf("--agones-port %s, the port is named %v", get("agones-port"), portName)
	}
	if get("public") != "" {
		t.Error("--public set: the public address is the node's at the Dynamic port, which the SDK reports")
	}

	// Health: pings at least twice a period, and the period checked.
	if at(t, spec, "health.disabled") != false {
		t.Error("health checks disabled")
	}
	period := time.Duration(atInt(t, spec, "health.periodSeconds")) * time.Second
	ping, _ := time.ParseDuration(get("agones-health"))
	if ping <= 0 || 2*ping > period {
		t.Errorf("--agones-health %v: want at most half of health.periodSeconds (%v)", ping, period)
	}
	if atInt(t, spec, "health.failureThreshold") < 2 || atInt(t, spec, "health.initialDelaySeconds") < 1 {
		t.Errorf("health: failureThreshold %d, initialDelaySeconds %d: want 2+ and 1+",
			atInt(t, spec, "health.failureThreshold"), atInt(t, spec, "health.initialDelaySeconds"))
	}

	// The drain ends before Kubernetes kills the pod.
	drain, _ := time.ParseDuration(get("drain"))
	grace := time.Duration(atInt(t, spec, "template.spec.terminationGracePeriodSeconds")) * time.Second
	if drain <= 0 || drain+10*time.Second > grace {
		t.Errorf("--drain %v: want above 0 and 10 s under terminationGracePeriodSeconds (%v)", drain, grace)
	}

	// The key comes from a Secret mounted where --key-file reads it.
	mount := at(t, containers[0], "volumeMounts.[0]")
	if !strings.HasPrefix(get("key-file"), at(t, mount, "mountPath").(string)+"/") {
		t.Errorf("--key-file %s is not under the mount %v", get("key-file"), at(t, mount, "mountPath"))
	}
	vol := at(t, spec, "template.spec.volumes.[0]")
	if at(t, vol, "name") != at(t, mount, "name") || at(t, vol, "secret.secretName") == "" {
		t.Errorf("the key's volume is not the Secret mounted")
	}

	return get, containerPort
}

// TestDeployRoomsFleet checks deploy/fleet-rooms.yaml: a fleet of
// `serve --rooms --agones` whose GameServers declare the Counter serve
// counts its matches in and a players List as large as its client slots.
func TestDeployRoomsFleet(t *testing.T) {
	fleet := manifest(t, "fleet-rooms.yaml")
	if at(t, fleet, "apiVersion") != "agones.dev/v1" || at(t, fleet, "kind") != "Fleet" {
		t.Fatalf("fleet-rooms.yaml is a %v %v", at(t, fleet, "apiVersion"), at(t, fleet, "kind"))
	}
	spec := at(t, fleet, "spec.template.spec")
	get, _ := checkServeSpec(t, "fleet-rooms.yaml", spec)
	if get("rooms") != "true" {
		t.Fatal("the rooms fleet's serve lacks --rooms")
	}
	if atInt(t, spec, "counters."+get("agones-rooms-counter")+".capacity") < 1 {
		t.Errorf("Counter %s: want a capacity of at least one match", get("agones-rooms-counter"))
	}
	var maxClients int64
	fmt.Sscan(get("max-clients"), &maxClients)
	if capacity := atInt(t, spec, "lists."+get("agones-players-list")+".capacity"); maxClients < 1 || capacity < maxClients {
		t.Errorf("List %s holds %d players, serve takes %d", get("agones-players-list"), capacity, maxClients)
	}
	if d, err := time.ParseDuration(get("max-duration")); err != nil || d <= 0 {
		t.Errorf("--max-duration %q: a rooms server wants matches bounded in time", get("max-duration"))
	}
}

// TestYAMLSubset: the manifests' parser reads what they use and refuses
// the rest of YAML rather than misread it.
func TestYAMLSubset(t *testing.T) {
	v, err := parseYAML("---\na: 1 # one\nb:\n- x\n- k: 'it''s'\n  l: \"q\\\"\"\n-\n  - 2\nc: {}\nd:\n  e: true\nf:\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "b": []any{"x", map[string]any{"k": "it's", "l": `q"`}, []any{int64(2)}},
		"c": map[string]any{}, "d": map[string]any{"e": true}, "f": nil}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("parsed %#v", v)
	}
	for _, bad := range []string{
		"a: {b: 1}", "a: [1]", "a: &x 1", "a: *x", "a: |\n  text", "a: !!str 1", "\ta: 1",
		"a: 1\na: 2", "a: 1\n  b: 2", "a:\n  b: 1\n c: 2", "a: 1\n---\nb: 2", "just a scalar", "a: b: c",
	} {
		if _, err := parseYAML(bad); err == nil {
			t.Errorf("parseYAML(%q) = nil error", bad)
		}
	}
}
