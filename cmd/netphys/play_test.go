package main

import (
	"context"
	"strings"
	"testing"
)

func TestRuntimeCommandsRefuseBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--bot"}, "connect token"},
		{[]string{"play", "--http", "", "--token", "x"}, "--bot"},
		{[]string{"play", "--model", "nope", "--bot"}, "unknown model"},
		{[]string{"play", "--players", "0", "--bot"}, "--players"},
		{[]string{"play", "--bot", "--ticks", "-1", "--token", "x"}, "negative"},
		{[]string{"play", "--bot", "--token", "not a token"}, "token"},
		{[]string{"demo", "--model", "nope", "--headless"}, "unknown model"},
		{[]string{"demo", "--model", "nope", "--headless", "--loss", "150%"}, "150%"},
		{[]string{"serve", "--model", "nope", "--key", strings.Repeat("ab", 32)}, "unknown model"},
	} {
		var out strings.Builder
		err := run(context.Background(), c.args, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}

func TestRuntimeHelpNamesTheModelFlags(t *testing.T) {
	for _, cmd := range []string{"serve", "play", "demo"} {
		var out strings.Builder
		run(context.Background(), []string{cmd, "--help"}, &out)
		for _, flag := range []string{"-model", "-players"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("%s --help lacks %s:\n%s", cmd, flag, out.String())
			}
		}
	}
}
