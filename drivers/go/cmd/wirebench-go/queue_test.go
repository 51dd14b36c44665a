package main

// The queue suite as a process: every listed cell's result (TestListedCellsAllRunAndVerify
// runs them with queueIters and checks them with checkQueueResult), and the `queue append`
// and `queue tail` commands: round trip across cycle files, a writer dying mid-entry and
// the recovery after it, a second appender refused, a follower of a live appender, and a
// damaged file.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// queueIters are a queue cell's --iters in the tests: values per run.
func queueIters(kase string) string {
	if kase == "bulk" {
		return "10000"
	}
	return "1000"
}

// queueDir is an empty directory for a queue: on tmpfs where there is one, so that the
// cells' 64 MiB pretouched files cost memory, not disk writes.
func queueDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "wbq-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// histogramCount decodes a histogram and returns how many values it holds; it fails
// unless it has the protocol's range and precision.
func histogramCount(t *testing.T, what string, v any) int64 {
	t.Helper()
	s, _ := v.(string)
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if h.LowestTrackableValue() != 1 || h.HighestTrackableValue() < 3_600_000_000_000 || h.SignificantFigures() != 3 {
		t.Errorf("%s: range %d..%d, %d digits", what, h.LowestTrackableValue(), h.HighestTrackableValue(),
			h.SignificantFigures())
	}
	return h.TotalCount()
}

// checkQueueResult checks a queue result of --samples 2 --warmup 1 and queueIters: the
// metrics, the histograms' counts, the intervals, the check sums of the values 0, 1, 2,
// ... written across the process, the entries checked, the queue's files.
func checkQueueResult(t *testing.T, args []string, res map[string]any) {
	t.Helper()
	kase, lib := res["case"].(string), res["lib"].(string)
	iters, _ := strconv.ParseInt(queueIters(kase), 10, 64)
	metrics, _ := res["metrics"].(map[string]any)
	timeM, _ := metrics["time"].(map[string]any)
	if timeM["unit"] != "ns" || text(timeM["iters"]) != strconv.FormatInt(iters, 10) ||
		len(timeM["samples"].([]any)) != 2 {
		t.Errorf("%v: time %s", args, text(timeM))
	}
	writes := 2 * iters // timed writes
	if kase == "bulk" {
		writes = 2
	}
	names := []string{"latency"}
	if kase == "paced" {
		names = append(names, "service")
	}
	if len(metrics) != 1+len(names) {
		t.Errorf("%v: metrics %s", args, text(metrics))
	}
	intervals, _ := res["intervals"].(map[string]any)
	if len(intervals) != len(names) {
		t.Errorf("%v: intervals of %d histograms", args, len(intervals))
	}
	for _, name := range names {
		m, _ := metrics[name].(map[string]any)
		if n := histogramCount(t, name, m["histogram"]); m["unit"] != "ns" || n != writes {
			t.Errorf("%v: %s holds %d values, want %d", args, name, n, writes)
		}
		list, _ := intervals[name].([]any)
		var n int64
		for i, item := range list {
			iv, _ := item.(map[string]any)
			if text(iv["start_ms"]) != strconv.Itoa(1000*i) || text(iv["length_ms"]) != "1000" {
				t.Errorf("%v: interval %d: %s", args, i, text(iv))
			}
			n += histogramCount(t, name, iv["histogram"])
		}
		if len(list) == 0 || n != writes {
			t.Errorf("%v: %d intervals of %s hold %d values, want %d", args, len(list), name, n, writes)
		}
	}
	// Run 1+k writes the values (1+k)*iters ... (2+k)*iters-1; single's samples are two
	// runs each (one timed whole, one per write), every one read back.
	runs := int64(2)
	if kase == "single" {
		runs = 4
	}
	var want []string
	for k := int64(1); k <= runs; k++ {
		want = append(want, strconv.FormatInt(iters*(k*iters)+iters*(iters-1)/2, 10))
	}
	if got := text(res["check"]); got != "["+strings.Join(want, ",")+"]" {
		t.Errorf("%v: check %s, want %v", args, got, want)
	}
	entries := (1 + runs) * iters
	if kase == "bulk" {
		entries = 1 + runs
	}
	if got := text(res["entries_checked"]); got != strconv.FormatInt(entries, 10) {
		t.Errorf("%v: entries_checked %s, want %d", args, got, entries)
	}
	q := text(res["queue"])
	wantQ := `{"cycle_size":0,"cycles":0}`
	if lib == "wbq" {
		wantQ = `{"cycle_size":67108864,"cycles":1}`
		if res["params"].(map[string]any)["pretouch"] == "on" {
			wantQ = `{"cycle_size":67108864,"cycles":2}` // and the next file, ahead
		}
	}
	if q != wantQ {
		t.Errorf("%v: queue %s, want %s", args, q, wantQ)
	}
}

// queueRun runs `queue ...` and returns its one JSON line's fields.
func queueRun(t *testing.T, wantCode int, args ...string) (map[string]any, string) {
	t.Helper()
	r := driver(t, nil, append([]string{"queue"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("%v: exit %d, want %d: %s", args, r.code, wantCode, r.stderr)
	}
	if wantCode != 0 {
		return nil, r.stderr
	}
	return object(t, r.stdout), r.stderr
}

func expectFields(t *testing.T, what string, got map[string]any, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if text(got[k]) != v {
			t.Errorf("%s: %s is %s, want %s (%s)", what, k, text(got[k]), v, text(got))
		}
	}
}

func TestQueueAppendTailAndRecovery(t *testing.T) {
	dir := queueDir(t)
	small := []string{"--cycle-size", "65536"}
	out, _ := queueRun(t, 0, append([]string{"append", dir, "--entries", "10", "--longs", "3", "--first", "-5"},
		small...)...)
	expectFields(t, "append", out, map[string]string{"entries": "10", "longs": "30", "first": "-5", "sum": "285"})
	// 2000 entries of 40 bytes: into a second cycle file.
	queueRun(t, 0, append([]string{"append", dir, "--entries", "2000", "--longs", "3", "--first", "25"}, small...)...)
	sum := func(from, to int64) string { return strconv.FormatInt((from+to)*(to-from+1)/2, 10) }
	out, _ = queueRun(t, 0, "tail", dir)
	expectFields(t, "tail", out, map[string]string{"entries": "2010", "longs": "6030", "first": "-5",
		"last": "6024", "sum": sum(-5, 6024), "consecutive": "true", "monotonic": "true", "abandoned": "0",
		"stopped": `"end"`, "file": `"00000001.wbq"`})

	// A writer dies in the middle of an entry: tailers stop there, naming it.
	r := driver(t, nil, append([]string{"queue", "append", dir, "--entries", "1", "--longs", "4", "--first", "6025",
		"--die-mid-entry"}, small...)...)
	if r.code != 3 {
		t.Fatalf("--die-mid-entry: exit %d: %s", r.code, r.stderr)
	}
	out, _ = queueRun(t, 0, "tail", dir)
	expectFields(t, "tail", out, map[string]string{"entries": "2011", "last": "6028", "stopped": `"incomplete"`,
		"abandoned": "0", "file": `"00000001.wbq"`})
	// The next appender recovers it; tailers skip and count it.
	queueRun(t, 0, append([]string{"append", dir, "--entries", "2", "--longs", "1", "--first", "6029"}, small...)...)
	out, _ = queueRun(t, 0, "tail", dir)
	expectFields(t, "tail", out, map[string]string{"entries": "2013", "last": "6030", "sum": sum(-5, 6030),
		"consecutive": "true", "abandoned": "1", "stopped": `"end"`})

	// Another cycle size is refused, naming both.
	_, msg := queueRun(t, 1, "append", dir, "--entries", "1")
	if !strings.Contains(msg, "cycle size 65536") || !strings.Contains(msg, "cycle size 67108864") {
		t.Errorf("another cycle size: %s", msg)
	}
	// A damaged file is an error naming the file and the offset.
	path := filepath.Join(dir, "00000001.wbq")
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	if _, msg := queueRun(t, 1, "tail", dir); !strings.Contains(msg, path+" offset 16:") {
		t.Errorf("truncated: %s", msg)
	}
}

func TestQueueSecondAppenderIsRefused(t *testing.T) {
	dir := queueDir(t)
	cmd := exec.Command(os.Args[0], "queue", "append", dir, "--entries", "100000", "--pause-us", "100")
	cmd.Env = append(os.Environ(), "WIREBENCH_GO_DRIVER=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := strconv.Itoa(cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(dir, "queue.lock")); string(b) == pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first appender did not take the lock")
		}
	}
	_, msg := queueRun(t, 1, "append", dir, "--entries", "1")
	if !strings.Contains(msg, "queue "+dir+" already has an appender (pid "+pid+")") {
		t.Errorf("second appender: %s", msg)
	}
	// Killed, however it dies, it leaves a queue the next appender recovers.
	cmd.Process.Kill()
	cmd.Wait()
	queueRun(t, 0, "append", dir, "--entries", "1", "--first", "-1")
	out, _ := queueRun(t, 0, "tail", dir)
	if text(out["last"]) != "-1" || text(out["stopped"]) != `"end"` {
		t.Errorf("after the kill: %s", text(out))
	}
}

func TestQueueFollowerOfALiveAppender(t *testing.T) {
	dir := filepath.Join(queueDir(t), "later") // made by the appender, after the follower starts
	cmd := exec.Command(os.Args[0], "queue", "tail", dir, "--follow", "--expect", "300", "--timeout", "20")
	cmd.Env = append(os.Environ(), "WIREBENCH_GO_DRIVER=1")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	queueRun(t, 0, "append", dir, "--entries", "300", "--longs", "2", "--pause-us", "200", "--cycle-size", "65536")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	expectFields(t, "follower", object(t, stdout.String()), map[string]string{"entries": "300", "longs": "600",
		"first": "0", "last": "599", "consecutive": "true", "monotonic": "true", "stopped": `"end"`})
	// A follower that waits in vain gives up, naming how many it read.
	_, msg := queueRun(t, 1, "tail", dir, "--follow", "--expect", "301", "--timeout", "0.2")
	if !strings.Contains(msg, "300 of 301 entries") {
		t.Errorf("timeout: %s", msg)
	}
}
