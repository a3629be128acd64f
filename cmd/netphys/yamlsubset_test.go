package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseYAML reads the block-style subset of YAML the manifests in deploy/
// are written in, without a YAML module (none is a dependency, and the
// manifests need little): one document (an optional leading "---");
// mappings ("key: value", or "key:" and an indented block or a sequence
// at the key's own indent); sequences ("- item", an item a scalar or a
// mapping begun on the dash's line); scalars plain (strings, integers,
// true, false), "double-quoted" and 'single-quoted'; [] and {}; comments.
// Anything else (flow collections, anchors, aliases, tags, block scalars,
// tabs, duplicate keys, a second document) is an error, so a manifest
// cannot drift into YAML this test would misread.
func parseYAML(text string) (any, error) {
	var lines []yamlLine
	for n, raw := range strings.Split(text, "\n") {
		if strings.ContainsRune(raw, '\t') {
			return nil, fmt.Errorf("line %d: a tab", n+1)
		}
		s := stripComment(raw)
		if strings.TrimSpace(s) == "" {
			continue
		}
		if strings.TrimSpace(s) == "---" {
			if len(lines) > 0 {
				return nil, fmt.Errorf("line %d: a second document", n+1)
			}
			continue
		}
		body := strings.TrimLeft(s, " ")
		lines = append(lines, yamlLine{n: n + 1, indent: len(s) - len(body), text: strings.TrimRight(body, " ")})
	}
	if len(lines) == 0 {
		return nil, nil
	}
	p := &yamlParser{lines: lines}
	v, err := p.block(lines[0].indent)
	if err == nil && p.i < len(lines) {
		err = fmt.Errorf("line %d: indentation does not fit the block above", lines[p.i].n)
	}
	return v, err
}

type yamlLine struct {
	n, indent int
	text      string
}

type yamlParser struct {
	lines []yamlLine
	i     int
}

// stripComment drops a # comment outside quotes.
func stripComment(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' '):
			return s[:i]
		}
	}
	return s
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

func (p *yamlParser) block(indent int) (any, error) {
	if isSeqItem(p.lines[p.i].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// splitKey splits "key: rest" or "key:"; ok is false for a scalar.
func splitKey(text string) (key, rest string, ok bool) {
	if text == "" || strings.ContainsAny(text[:1], `"'[{&*!|>`) {
		return "", "", false
	}
	if k, r, found := strings.Cut(text, ": "); found {
		return k, strings.TrimSpace(r), true
	}
	if strings.HasSuffix(text, ":") {
		return text[:len(text)-1], "", true
	}
	return "", "", false
}

func (p *yamlParser) mapping(indent int) (any, error) {
	m := map[string]any{}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && !isSeqItem(p.lines[p.i].text) {
		l := p.lines[p.i]
		key, rest, ok := splitKey(l.text)
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a key: value", l.n, l.text)
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("line %d: key %q twice", l.n, key)
		}
		p.i++
		switch {
		case rest != "":
			v, err := yamlScalar(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", l.n, err)
			}
			m[key] = v
		case p.i < len(p.lines) && p.lines[p.i].indent > indent:
			v, err := p.block(p.lines[p.i].indent)
			if err != nil {
				return nil, err
			}
			m[key] = v
		case p.i < len(p.lines) && p.lines[p.i].indent == indent && isSeqItem(p.lines[p.i].text):
			v, err := p.sequence(indent)
			if err != nil {
				return nil, err
			}
			m[key] = v
		default:
			m[key] = nil
		}
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, fmt.Errorf("line %d: indented deeper than its mapping", p.lines[p.i].n)
	}
	return m, nil
}

func (p *yamlParser) sequence(indent int) (any, error) {
	s := []any{}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && isSeqItem(p.lines[p.i].text) {
		l := p.lines[p.i]
		item := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		if item == "" {
			p.i++
			if p.i >= len(p.lines) || p.lines[p.i].indent <= indent {
				s = append(s, nil)
				continue
			}
			v, err := p.block(p.lines[p.i].indent)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
			continue
		}
		if _, _, ok := splitKey(item); ok || isSeqItem(item) {
			// A block begun on the dash's line: read it as if the item
			// started its own line at the item's column.
			p.lines[p.i] = yamlLine{n: l.n, indent: l.indent + len(l.text) - len(item), text: item}
			v, err := p.block(p.lines[p.i].indent)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
			continue
		}
		v, err := yamlScalar(item)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", l.n, err)
		}
		s = append(s, v)
		p.i++
	}
	return s, nil
}

// yamlScalar reads one scalar of the subset.
func yamlScalar(s string) (any, error) {
	switch {
	case s == "[]":
		return []any{}, nil
	case s == "{}":
		return map[string]any{}, nil
	case s[0] == '"':
		v, err := strconv.Unquote(s)
		if err != nil {
			return nil, fmt.Errorf("double-quoted scalar %s: %w", s, err)
		}
		return v, nil
	case s[0] == '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' || strings.Contains(strings.ReplaceAll(s[1:len(s)-1], "''", ""), "'") {
			return nil, fmt.Errorf("single-quoted scalar %s", s)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	case strings.ContainsAny(s[:1], "[{&*!|>%@`"):
		return nil, fmt.Errorf("%q is outside the YAML subset the manifests use", s)
	case strings.Contains(s, ": ") || strings.HasSuffix(s, ":"):
		return nil, fmt.Errorf("%q: a mapping where a scalar belongs", s)
	case s == "true" || s == "false":
		return s == "true", nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return s, nil
}
