package core

import (
	"fmt"
	"os"
	"strings"
)

// FuzzTarget gives the indices of the libraries (by name, in registry order) that a
// suite's fuzz target exercises: the one WIREBENCH_FUZZ_TARGET names as <suite>_<lib>
// (a "-" in a library's name written "_"; scripts/fuzz.sh sets it), or every library
// when it names none of this suite's.
func FuzzTarget(suite string, names []string) ([]int, error) {
	want, ok := strings.CutPrefix(os.Getenv("WIREBENCH_FUZZ_TARGET"), suite+"_")
	if !ok {
		all := make([]int, len(names))
		for i := range names {
			all[i] = i
		}
		return all, nil
	}
	for i, name := range names {
		if strings.ReplaceAll(name, "-", "_") == want {
			return []int{i}, nil
		}
	}
	return nil, fmt.Errorf("WIREBENCH_FUZZ_TARGET: no %s library %q", suite, want)
}
