// Package syncbuf is a buffer one goroutine writes and another reads: the
// output of a process or a server that a test reads while it runs.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer is a strings.Builder behind a mutex. The zero value is empty
// and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
