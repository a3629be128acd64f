// Package examples_test checks that the README's section on plugging in a
// game quotes the example games exactly, so that every snippet it shows is
// code the tests compile and run.
package examples_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the README's quoted snippets from the example files")

const section = "### Plugging in your own game"

// A quote in the README is an HTML comment naming a file and a region,
// then a Go code block:
//
//	<!-- quote examples/pong/game.go input -->
//	```go
//	...
//	```
//
// In the file the region is the lines between "// README: input" and
// "// README: end", without those two, the blank lines at either end and
// the indentation common to all.
var quoteRE = regexp.MustCompile("(?m)^<!-- quote (\\S+) (\\S+) -->\n```go\n((?s:.*?))```\n")

func TestREADMEQuotesTheExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte(section+"\n"))
	if start < 0 {
		t.Fatalf("README.md has no %q section", section)
	}
	end := start + len(section) + bytes.Index(readme[start+len(section):], []byte("\n## "))
	if end < start+len(section) {
		end = len(readme)
	}
	body := string(readme[start:end])
	quotes := quoteRE.FindAllStringSubmatchIndex(body, -1)
	if len(quotes) < 4 {
		t.Fatalf("the section quotes %d snippets; it should show the examples' code", len(quotes))
	}
	// Every Go block of the section is a quote.
	if blocks := strings.Count(body, "```go\n"); blocks != len(quotes) {
		t.Fatalf("the section has %d Go blocks and %d quotes: quote every snippet from a file under examples/", blocks, len(quotes))
	}
	var out strings.Builder
	last := 0
	for _, q := range quotes {
		file, region, shown := body[q[2]:q[3]], body[q[4]:q[5]], body[q[6]:q[7]]
		want, err := extract(filepath.Join("..", file), region)
		if err != nil {
			t.Fatal(err)
		}
		if shown != want && !*rewrite {
			t.Errorf("README quotes %s %s as\n%s\nbut the file has\n%s\n(go test ./examples -rewrite updates the README)", file, region, shown, want)
		}
		out.WriteString(body[last:q[6]])
		out.WriteString(want)
		last = q[7]
	}
	out.WriteString(body[last:])
	if *rewrite {
		updated := append(append(append([]byte{}, readme[:start]...), out.String()...), readme[end:]...)
		if err := os.WriteFile("../README.md", updated, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// extract returns the lines of file between "// README: region" and the
// next "// README: end", with their common indentation removed.
func extract(file, region string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var lines []string
	in, found := false, false
	for _, l := range strings.Split(string(src), "\n") {
		switch strings.TrimSpace(l) {
		case "// README: " + region:
			in, found = true, true
			continue
		case "// README: end":
			in = false
			continue
		}
		if in {
			lines = append(lines, l)
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if !found || len(lines) == 0 {
		return "", fmt.Errorf("%s has no region %q (marked // README: %s ... // README: end)", file, region, region)
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, "\t")); indent < 0 || n < indent {
			indent = n
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) >= indent {
			l = l[indent:]
		}
		b.WriteString(l + "\n")
	}
	return b.String(), nil
}
