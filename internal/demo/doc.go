// Package demo runs the netphys demo: the cube world simulated
// authoritatively, and a remote copy fed over real UDP on 127.0.0.1 through
// a netcode connection, reliable.io packet acks and the network simulator's
// proxy, side by side.
//
// Until the network models land, the remote side uses plain state
// synchronization, the first step of the state-synchronization article: the
// authority captures every body's full state (position, orientation, linear
// and angular velocity, at-rest bit, interacting bit) and sends it Rate
// times per second, split into packets that each decode on their own; the
// remote side applies what arrives and simulates in between.
//
//	authority scene ──StateMessage──► reliable ► netcode server ─┐
//	                                                             UDP ► netsim proxy ► UDP
//	remote scene    ◄──apply────────  reliable ◄ netcode client ◄┘
//
// With a viewer, the player follows the keys held in the page; after
// Config.AutoPlay without a key it follows the scripted minute of play until
// a key is pressed, and the figures say which ("player"). The figures also
// show the configured latency, loss and state rate, and "no estimate yet"
// for the loss until the acks of enough packets came back.
//
// The demo is an application, not a library: package internal.
package demo
