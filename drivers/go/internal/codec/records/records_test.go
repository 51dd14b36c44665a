package records

import (
	"encoding/json"
	"os"
	"testing"
)

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../../../testdata/codec/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The records equal testdata/codec/{log,logs}.json (Python's reference, parsed with
// encoding/json and the structs' tags, every field required), and their folds and counts
// are those of checks.json.
func TestRecordsAndFoldsMatchTestdata(t *testing.T) {
	var checks map[string]struct {
		Records int
		Fold    int64
	}
	if err := json.Unmarshal(testdata(t, "checks.json"), &checks); err != nil {
		t.Fatal(err)
	}
	for _, kase := range Cases {
		var want []Log
		if kase == "log" {
			want = make([]Log, 1)
			if err := json.Unmarshal(testdata(t, "log.json"), &want[0]); err != nil {
				t.Fatal(err)
			}
		} else {
			var batch Logs
			if err := json.Unmarshal(testdata(t, "logs.json"), &batch); err != nil {
				t.Fatal(err)
			}
			// A batch of the size axis is the first records of the generator: of logs
			// itself up to 1000; beyond, logs10000's first 1000 are logs.
			want = batch.Logs[:min(len(batch.Logs), Sizes[kase])]
		}
		got := Of(kase)
		if len(got) > len(want) {
			got = got[:len(want)]
		}
		if err := Compare(got, want); err != nil {
			t.Errorf("%s: %v", kase, err)
		}
		got = Of(kase)
		c := checks[kase]
		if len(got) != c.Records || int64(Fold(got)) != c.Fold {
			t.Errorf("%s: %d records, fold %d; checks.json: %d, %d", kase, len(got), int64(Fold(got)),
				c.Records, c.Fold)
		}
	}
}

func TestCompareNamesTheField(t *testing.T) {
	a, b := Of("logs"), Of("logs")
	b[7].Origin.Hostname = "x"
	if err := Compare(a, b); err == nil || err.Error() !=
		`record 7: Origin.Hostname is "`+a[7].Origin.Hostname+`", expected "x"` {
		t.Errorf("%v", err)
	}
	if Compare(a, a[:3]) == nil {
		t.Error("different lengths compare equal")
	}
}

// An empty string adds nothing; others their length and first and last byte.
func TestStr(t *testing.T) {
	if Str("") != 0 || Str("a") != 1+2*'a' || Str([]byte("ab")) != 2+'a'+'b' {
		t.Error("Str")
	}
}
