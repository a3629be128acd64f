// Package tokenservice is the HTTP side of netcode's connect tokens: the
// http.Handler a game backend mounts (behind HTTPS) to hand tokens to the
// players it authenticated. Players pass the token text to transport.Dial
// after transport.DecodeToken.
//
//	h := &tokenservice.Handler{Params: params, PrivateKey: key, Authenticate: checkSession}
//	http.Handle("/netcode/token", h)
package tokenservice
