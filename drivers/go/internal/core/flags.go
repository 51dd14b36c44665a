package core

import (
	"slices"
	"strconv"
	"strings"
)

// Flags are the --NAME VALUE pairs of a command line, by name; a switch (a flag without a
// value) has the value "".
type Flags map[string]string

// Has reports whether the flag called name was given.
func (f Flags) Has(name string) bool { _, ok := f[name]; return ok }

// Count is the value of --name as a decimal count of at least min.
func (f Flags) Count(name string, min uint64) (uint64, error) {
	s := f[name]
	if s == "" || len(s) > 19 || strings.Trim(s, "0123456789") != "" {
		return 0, Usage("bad value for --%s: '%s' (want a decimal integer)", name, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, Usage("bad value for --%s: '%s'", name, s)
	}
	if v < min {
		return 0, Usage("bad value for --%s: %s (at least %d)", name, s, min)
	}
	return v, nil
}

// CountOr is the count --name of at least min, or def without the flag.
func (f Flags) CountOr(name string, def, min uint64) (uint64, error) {
	if !f.Has(name) {
		return def, nil
	}
	return f.Count(name, min)
}

// OneOf is the value of --name, which must be one of allowed; context follows the value
// in the message of a value not allowed (" for lib wbq").
func (f Flags) OneOf(name string, allowed []string, context string) (string, error) {
	if !f.Has(name) {
		return "", Usage("missing --%s (one of: %s)", name, strings.Join(allowed, ", "))
	}
	v := f[name]
	if slices.Contains(allowed, v) {
		return v, nil
	}
	return "", Usage("unknown value for --%s: '%s'%s (one of: %s)", name, v, context,
		strings.Join(allowed, ", "))
}
