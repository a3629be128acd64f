package tab

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/netphys/netphys/viewer"
)

//go:embed static
var static embed.FS

// Program is the tab's wasm program and the wasm_exec.js of the Go
// version that built it.
type Program struct {
	Wasm     []byte
	WasmExec []byte
}

// WasmPackage is the import path of the tab's wasm program.
const WasmPackage = "github.com/netphys/netphys/tab/wasm"

// Build compiles the tab's wasm program with the go command on PATH
// (GOOS=js GOARCH=wasm), from the module that holds dir, and reads that
// toolchain's wasm_exec.js.
func Build(ctx context.Context, dir string) (Program, error) {
	tmp, err := os.MkdirTemp("", "netphys-tab-")
	if err != nil {
		return Program{}, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "tab.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, WasmPackage)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return Program{}, fmt.Errorf("tab: go build %s for js/wasm: %w\n%s", WasmPackage, err, b)
	}
	root, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return Program{}, fmt.Errorf("tab: go env GOROOT: %w", err)
	}
	var p Program
	if p.Wasm, err = os.ReadFile(out); err != nil {
		return Program{}, err
	}
	goroot := strings.TrimSpace(string(root))
	// lib/wasm since Go 1.24, misc/wasm before.
	for _, d := range []string{"lib", "misc"} {
		if p.WasmExec, err = os.ReadFile(filepath.Join(goroot, d, "wasm", "wasm_exec.js")); err == nil {
			return p, nil
		}
	}
	return Program{}, fmt.Errorf("tab: no wasm_exec.js in %s (Go %s): %w", goroot, runtime.Version(), err)
}

// Handler serves the tab: the viewer's page with the bridge at / (and
// the viewer's scripts), the program at /tab.wasm and /wasm_exec.js, the
// connect tokens at /token (tokens, the token service's handler) and the
// WebTransport endpoint's Info at /webtransport.json (info, a Mux's
// InfoHandler).
func Handler(p Program, tokens, info http.Handler) (http.Handler, error) {
	if len(p.Wasm) == 0 || len(p.WasmExec) == 0 {
		return nil, errors.New("tab: the program is missing its wasm or its wasm_exec.js (see Build)")
	}
	bridge, err := static.ReadFile("static/bridge.js")
	if err != nil {
		return nil, err
	}
	worker, err := static.ReadFile("static/worker.js")
	if err != nil {
		return nil, err
	}
	index, err := tabPage()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /token", tokens)
	mux.Handle("POST /token", tokens)
	mux.Handle("GET /webtransport.json", info)
	mux.Handle("GET /tab.wasm", bytesHandler("application/wasm", p.Wasm))
	mux.Handle("GET /wasm_exec.js", bytesHandler("text/javascript", p.WasmExec))
	mux.Handle("GET /bridge.js", bytesHandler("text/javascript", bridge))
	mux.Handle("GET /worker.js", bytesHandler("text/javascript", worker))
	mux.Handle("GET /{$}", bytesHandler("text/html; charset=utf-8", index))
	mux.Handle("GET /", http.FileServerFS(viewer.Assets()))
	return securityHeaders(mux), nil
}

// securityHeaders says that the page loads nothing from elsewhere but
// the WebTransport endpoint (https: on its own port); wasm needs
// 'wasm-unsafe-eval', the viewer images from data: and blob:.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' https:; img-src 'self' data: blob:")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// viewerScript is where the viewer's page loads its script; the tab's
// page loads the Go runtime's support and the bridge before it.
const viewerScript = `<script type="module" src="viewer.js"></script>`

// tabPage is the viewer's page with the bridge loaded first, so that
// the viewer finds the bridge's TabSocket as its WebSocket. The Go
// program and wasm_exec.js run in the bridge's worker (worker.js).
func tabPage() ([]byte, error) {
	b, err := fs.ReadFile(viewer.Assets(), "index.html")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(b, []byte(viewerScript)) {
		return nil, fmt.Errorf("tab: the viewer's index.html no longer loads %s: update tabPage", viewerScript)
	}
	return bytes.Replace(b, []byte(viewerScript), []byte(`<script src="bridge.js"></script>`+viewerScript), 1), nil
}

func bytesHandler(contentType string, b []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(b)
	})
}
