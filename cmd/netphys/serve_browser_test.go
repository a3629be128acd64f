package main

import (
	"context"
	"strings"
	"testing"
)

// TestServeBrowserFlagsRefused: the browser flags that cannot work are
// refused before anything starts, naming what to do.
func TestServeBrowserFlagsRefused(t *testing.T) {
	key := strings.Repeat("ab", 32)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--key", key, "--webtransport", "127.0.0.1:0"}, "--model"},
		{[]string{"serve", "--key", key, "--model", "lockstep", "--web", "127.0.0.1:0"}, "give --webtransport"},
		{[]string{"serve", "--key", key, "--model", "lockstep", "--listen", freeUDPAddr(t), "--webtransport", "nowhere"}, "--webtransport"},
		{[]string{"serve", "--key", key, "--rooms", "--web", "127.0.0.1:0", "--webtransport", "127.0.0.1:0"}, "with --rooms, give --model"},
		{[]string{"serve", "--key", key, "--rooms", "--listen", freeUDPAddr(t), "--webtransport", "nowhere"}, "--webtransport"},
	} {
		var out strings.Builder
		err := run(context.Background(), c.args, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}
