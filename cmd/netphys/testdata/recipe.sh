# The README's recipe for a server and clients as separate processes;
# recipe_test.go runs these lines (on free ports) in one process.
go build -o netphys ./cmd/netphys
./netphys token --new-key > server.key       # private key shared by the token issuer and the servers (hex)
./netphys serve --key-file server.key --listen 127.0.0.1:40000 --metrics 127.0.0.1:9100 &
./netphys token --key-file server.key --servers 127.0.0.1:40000 --client-id 42 --out client.token
./netphys connect --token-file client.token --count 100 --rate 100   # handshake, echo round trips, loss
curl -s 127.0.0.1:9100/metrics | grep netphys_netcode_

# Through a bad network: the proxy listens on 40001 and forwards to a second server on 40002.
# Clients reach that server through the proxy only, so its public address and the token name the proxy.
./netphys serve --key-file server.key --listen 127.0.0.1:40002 --public 127.0.0.1:40001 &
./netphys netsim --listen 127.0.0.1:40001 --forward 127.0.0.1:40002 --latency 100ms --loss 5% &
./netphys token --key-file server.key --servers 127.0.0.1:40001 --out proxied.token
./netphys connect --token-file proxied.token --count 100 --rate 100
