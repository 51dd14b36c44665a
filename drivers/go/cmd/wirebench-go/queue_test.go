package main

// The queue suite's own commands as processes, `queue append` and `queue tail`: round
// trip across cycle files, a writer dying mid-entry and the recovery after it, a second
// appender refused, a follower of a live appender, and a damaged file.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
