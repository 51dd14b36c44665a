package rpc

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"wirebench/drivers/go/internal/rng"
	"wirebench/drivers/go/internal/rpc/cases"
)

// testdata reads a file of testdata/rpc (written by wirebench/workloads.py).
func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../../../testdata/rpc/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// digest parses a decimal digest as the protocol prints it: the wrapping sum read as i64
// (checks.json holds the exact sums, which may be above 2^63).
func digest(t *testing.T, s string) uint64 {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	u, err := strconv.ParseUint(strings.TrimPrefix(s, "-"), 10, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	if neg {
		return -u
	}
	return u
}

// Every library, compression, reuse mode and local mode gives the first 20 answers of
// testdata/rpc/<case>.txt, one request at a time from one generator.
func TestFirstTwentyRequestsOfEveryCaseAndLib(t *testing.T) {
	for _, kase := range Cases {
		var want []uint64
		for _, l := range strings.Split(testdata(t, kase+".txt"), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			_, v, _ := strings.Cut(l, " ")
			want = append(want, digest(t, v))
		}
		if len(want) != 20 {
			t.Fatalf("%s.txt: %d answers, want 20", kase, len(want))
		}
		for _, lib := range Libs {
			for _, compression := range lib.Compressions {
				for _, reuse := range []bool{true, false} {
					for _, mode := range []string{"object", "bytes"} {
						if mode == "object" && compression != "none" {
							continue
						}
						impl := lib.New(kase, compression, reuse)
						step := bytesLoop
						if mode == "object" {
							step = objectLoop
						}
						g := rng.New()
						for i, w := range want {
							var tally cases.Tally
							if err := step(impl, &g, 1, &tally); err != nil {
								t.Fatalf("%s %s %s %s reuse=%v request %d: %v", kase, lib.Name, mode, compression, reuse, i, err)
							}
							if tally.Check != w || tally.Responses != 1 {
								t.Fatalf("%s %s %s %s reuse=%v request %d: answer %d, want %d",
									kase, lib.Name, mode, compression, reuse, i, int64(tally.Check), int64(w))
							}
						}
					}
				}
			}
		}
	}
}

// checks returns the "N": digest pairs of one case in checks.json (a flat, known layout).
func checks(t *testing.T, kase string) map[uint64]uint64 {
	text := testdata(t, "checks.json")
	start := strings.Index(text, `"`+kase+`"`)
	if start < 0 {
		t.Fatalf("%s not in checks.json", kase)
	}
	body := text[start:]
	body = body[strings.Index(body, "{")+1 : strings.Index(body, "}")]
	out := map[uint64]uint64{}
	for _, kv := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(k), `"`), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = digest(t, strings.TrimSpace(v))
	}
	return out
}

// The digest of the first N answers equals checks.json for the small counts, with every
// library in bytes mode and both reuse modes.
func TestDigestsMatchChecksJSON(t *testing.T) {
	for _, kase := range Cases {
		table := checks(t, kase)
		if len(table) == 0 {
			t.Fatalf("no digests for %s", kase)
		}
		for _, lib := range Libs {
			for _, reuse := range []bool{true, false} {
				tested := 0
				for n, want := range table {
					if n > 1000 {
						continue // the large counts are for the harness
					}
					tested++
					impl := lib.New(kase, "none", reuse)
					g := rng.New()
					var tally cases.Tally
					if err := bytesLoop(impl, &g, n, &tally); err != nil {
						t.Fatalf("%s %s n=%d: %v", kase, lib.Name, n, err)
					}
					if tally.Check != want || tally.Responses != n {
						t.Errorf("%s %s reuse=%v n=%d: digest %d, want %d", kase, lib.Name, reuse, n,
							int64(tally.Check), int64(want))
					}
				}
				if tested == 0 {
					t.Fatalf("%s: no count of 1000 or less in checks.json", kase)
				}
			}
		}
	}
}
