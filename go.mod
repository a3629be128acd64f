module github.com/netphys/netphys

go 1.26.0

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	golang.org/x/crypto v0.58.0 // indirect
)
