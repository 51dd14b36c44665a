package core

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Quote is s as a JSON string.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Object is a JSON object built field by field, printed on one line.
type Object struct{ body strings.Builder }

// Raw adds a field whose value is already JSON.
func (j *Object) Raw(key, value string) *Object {
	if j.body.Len() > 0 {
		j.body.WriteString(", ")
	}
	j.body.WriteString(Quote(key))
	j.body.WriteString(": ")
	j.body.WriteString(value)
	return j
}

func (j *Object) Str(key, v string) *Object { return j.Raw(key, Quote(v)) }
func (j *Object) Num(key string, v uint64) *Object {
	return j.Raw(key, strconv.FormatUint(v, 10))
}
func (j *Object) Bool(key string, v bool) *Object { return j.Raw(key, strconv.FormatBool(v)) }

// Text is the object's JSON.
func (j *Object) Text() string { return "{" + j.body.String() + "}" }

// List is a JSON array of integers.
func List[T uint64 | int64](values []T) string {
	items := make([]string, len(values))
	for i, v := range values {
		items[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// Pairs is an object of string values, in order.
func Pairs(p [][2]string) string {
	var j Object
	for _, kv := range p {
		j.Str(kv[0], kv[1])
	}
	return j.Text()
}

// PrintLine writes one line to stdout; a closed stdout leaves nothing to report to, and
// the exit status still tells.
func PrintLine(s string) { _, _ = os.Stdout.WriteString(s + "\n") }
