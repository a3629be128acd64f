// Package tokenservice is the HTTP side of netcode's connect tokens: the
// http.Handler a game backend mounts (behind HTTPS) to hand tokens to the
// players it authenticated. Players pass the token text to transport.Dial
// after transport.DecodeToken.
//
//	h := &tokenservice.Handler{Params: params, PrivateKey: key, Authenticate: checkSession}
//	http.Handle("/netcode/token", h)
//
// For servers that host many matches at once (netphys serve --rooms),
// Matches creates, lists and ends matches and issues tokens that name
// their match (a Match in the token's user data):
//
//	ms := &tokenservice.Matches{Tokens: h, Admin: checkBackend, End: tokenservice.EndAt("http://10.0.0.7:9200", nil)}
//	http.Handle("/netcode/", http.StripPrefix("/netcode", ms)) // POST /netcode/matches, POST /netcode/matches/{id}/token, ...
package tokenservice
