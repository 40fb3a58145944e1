package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"trail/logfmt"
)

// SPEC 9: validate-log on a 1 GB log at least 300 MB/s with peak RSS under
// 64 MB; replay at least 150 MB/s; memory must not grow with the log.
//
// Each benchmark writes a log with trail's own writer into a temp folder,
// then runs the built binary on it as a subprocess: MB/s comes from
// b.SetBytes, peak RSS from the child's rusage (reported as peak-RSS-MB).
// The in-process variants measure logfmt alone. The 1 GB runs need
// TRAIL_BENCH_LARGE=1 (scripts/bench.sh sets it); `go test ./...` runs no
// benchmark at all, and `-bench .` alone stops at 100 MB.

const (
	benchSession = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	compactEvery = 12
)

// writeBenchLog writes a trail log of at least size bytes: a long session
// of steps (a user prompt, a tool round, a streamed answer), each process
// starting with session_init, a big tool result in a payload file every
// tenth step, and a compaction every 12 steps, as a long session has. The
// conversation stays bounded while the log grows, so replay's memory is
// the conversation's and validate's is a line's. The context sent with
// each request stays near the 32 KiB payload threshold: mostly inline,
// sometimes a payload file, as in a session that compacts.
func writeBenchLog(tb testing.TB, dir string, size int64) (string, int64) {
	tb.Helper()
	return writeLog(tb, dir, size, 6, 8)
}

// writeShortLineLog is writeBenchLog with answers of 600 words streamed a
// word at a time, as a model streams: most of the log is text_delta and
// provider_stream_raw_delta lines of about 150 bytes, the lines where the
// cost per line, not per byte, decides the speed.
func writeShortLineLog(tb testing.TB, dir string, size int64) (string, int64) {
	tb.Helper()
	return writeLog(tb, dir, size, 60, 1)
}

// writeLog writes the log: answers of answerRepeat times ten words, streamed
// deltaWords words at a time.
func writeLog(tb testing.TB, dir string, size int64, answerRepeat, deltaWords int) (string, int64) {
	tb.Helper()
	path := filepath.Join(dir, benchSession+".jsonl")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tick := 0
	w, err := logfmt.OpenWriter(path, logfmt.Options{SessionID: benchSession, Now: func() time.Time {
		tick++
		return t0.Add(time.Duration(tick) * 10 * time.Millisecond)
	}})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	F := logfmt.F
	msgID := 0
	msg := func(role, content string, extra ...logfmt.Field) json.RawMessage {
		msgID++
		o := logfmt.Object{F("id", fmt.Sprintf("msg-%08d", msgID)), F("role", role), F("content", content),
			F("state", "complete"), F("timestamp", "2026-01-01T00:00:00.000Z")}
		b, err := logfmt.Marshal(append(o, extra...))
		must(err)
		return b
	}
	var context []json.RawMessage
	appendMsg := func(exec string, round int, m json.RawMessage) {
		fields := []logfmt.Field{F("executionId", exec), F("conversationId", "main")}
		if round > 0 {
			fields = append(fields, F("round", round))
		}
		must(w.Log("history_mutation", append(fields, F("mutation", "append_message"), F("index", len(context)), F("message", m))...))
		context = append(context, m)
	}
	words := strings.Fields(strings.Repeat("the model answers with ordinary words of a realistic length ", answerRepeat))
	sys := "You are trail, an AI agent run from the command line.\nWorking directory: /work/project"
	for step := 0; ; step++ {
		exec := fmt.Sprintf("exec-%08d", step)
		if step%5 == 0 {
			must(w.Log("session_init", F("cwd", "/work/project"), F("systemPromptLength", len(sys)), F("systemPrompt", sys),
				F("toolSchemas", []any{}), F("model", "m"), F("provider", "script"), F("resumed", step > 0)))
		}
		if step%compactEvery == 0 {
			summary := msg("assistant", "[Context Summary]\n"+strings.Repeat("what happened so far, in brief. ", 20))
			sysMsg := msg("system", sys)
			if step == 0 {
				appendMsg(exec, 0, sysMsg)
			} else {
				context = []json.RawMessage{sysMsg, summary}
				must(w.Log("history_mutation", F("executionId", exec), F("conversationId", "main"), F("mutation", "replace_all"), F("messages", context)))
			}
		}
		prompt := fmt.Sprintf("step %d: please look at file %d and tell me what it does", step, step)
		must(w.Log("user", F("content", prompt)))
		appendMsg(exec, 0, msg("user", prompt))
		for round := 1; round <= 2; round++ {
			must(w.Log("provider_request", F("executionId", exec), F("conversationId", "main"), F("round", round),
				F("provider", "script"), F("model", "m"), F("messages", context), F("tools", []any{})))
			text := strings.Join(words, " ")
			for i := 0; i < len(words); i += deltaWords {
				delta := strings.Join(words[i:min(i+deltaWords, len(words))], " ") + " "
				must(w.Log("provider_stream_raw_delta", F("executionId", exec), F("conversationId", "main"), F("round", round), F("sequence", i), F("delta", delta)))
				must(w.Log("text_delta", F("delta", delta)))
			}
			resp := logfmt.Object{F("role", "assistant"), F("content", text)}
			must(w.Log("provider_native_raw_payload", F("executionId", exec), F("conversationId", "main"), F("round", round),
				F("provider", "script"), F("apiSurface", "script"), F("payloadKind", "response"), F("payload", resp), F("sequence", 0)))
			must(w.Log("provider_response_raw", F("executionId", exec), F("conversationId", "main"), F("round", round), F("response", resp)))
			must(w.Log("provider_response_normalized", F("executionId", exec), F("conversationId", "main"), F("round", round), F("response", resp), F("toolCallsCount", 2-round)))
			if round == 2 {
				appendMsg(exec, round, msg("assistant", text))
				break
			}
			call := fmt.Sprintf("call-%d", step)
			appendMsg(exec, round, msg("assistant", "", F("toolCalls", []any{logfmt.Object{F("id", call), F("type", "function"),
				F("function", logfmt.Object{F("name", "Read"), F("arguments", `{"path":"f.go"}`)})}})))
			must(w.Log("tool_execution_request", F("executionId", exec), F("conversationId", "main"), F("round", round), F("batchId", "b"),
				F("index", 0), F("toolName", "Read"), F("toolCallId", call), F("parameters", logfmt.Object{F("path", "f.go")})))
			out := strings.Repeat(fmt.Sprintf("line of file %d with some code in it;\n", step), 25)
			if step%10 == 0 {
				out = strings.Repeat(out, 40) // over 32 KiB: a payload file
			}
			must(w.Log("tool_execution_result", F("executionId", exec), F("conversationId", "main"), F("round", round), F("batchId", "b"),
				F("index", 0), F("toolName", "Read"), F("toolCallId", call), F("success", true), F("result", out)))
			appendMsg(exec, round, msg("tool", out, F("toolCallId", call), F("name", "Read")))
		}
		must(w.Log("assistant", F("content", "done"), F("historyLength", len(context))))
		must(w.Log("session_shutdown", F("reason", "other")))
		if step%20 == 19 {
			st, err := os.Stat(path)
			must(err)
			if st.Size() >= size {
				must(w.Sync())
				return path, st.Size()
			}
		}
	}
}

// runMeasured runs the binary and returns its peak RSS in MiB.
func runMeasured(b *testing.B, args ...string) float64 {
	b.Helper()
	c := exec.Command(trailBin, args...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "TRAIL_HOME=" + b.TempDir()}
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Run(); err != nil {
		b.Fatalf("trail %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	kib, _ := peakRSSKiB(c.ProcessState)
	return float64(kib) / 1024
}

func benchSize(b *testing.B, mb int64) int64 {
	if mb >= 1024 && os.Getenv("TRAIL_BENCH_LARGE") != "1" {
		b.Skip("set TRAIL_BENCH_LARGE=1 for the 1 GB log")
	}
	return mb << 20
}

func benchBinary(b *testing.B, mb int64, cmd ...string) {
	benchLog(b, writeBenchLog, mb, cmd...)
}

func benchLog(b *testing.B, write func(testing.TB, string, int64) (string, int64), mb int64, cmd ...string) {
	size := benchSize(b, mb)
	path, n := write(b, b.TempDir(), size)
	args := append(append([]string{}, cmd...), path)
	runMeasured(b, args...) // warm the page cache: the disk is not what is measured
	b.SetBytes(n)
	b.ResetTimer()
	peak := 0.0
	for i := 0; i < b.N; i++ {
		peak = max(peak, runMeasured(b, args...))
	}
	b.ReportMetric(peak, "peak-RSS-MB")
	b.ReportMetric(float64(dirSize(b, filepath.Join(filepath.Dir(path), benchSession+".payloads")))/(1<<20), "payload-MB")
}

// dirSize is the bytes of the files in dir: the payloads checked besides
// the log (MB/s counts the log's bytes only).
func dirSize(tb testing.TB, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

func BenchmarkValidateLog100MB(b *testing.B) { benchBinary(b, 100, "validate-log") }

// BenchmarkValidateLogShortLines100MB: the same target (300 MB/s) on a log
// made mostly of short lines (writeShortLineLog).
func BenchmarkValidateLogShortLines100MB(b *testing.B) {
	benchLog(b, writeShortLineLog, 100, "validate-log")
}
func BenchmarkValidateLog1GB(b *testing.B) { benchBinary(b, 1024, "validate-log") }
func BenchmarkReplay100MB(b *testing.B)    { benchBinary(b, 100, "replay", "--format", "jsonl") }
func BenchmarkReplay1GB(b *testing.B)      { benchBinary(b, 1024, "replay", "--format", "jsonl") }

// BenchmarkReplayTranscript100MB: the transcript view streams out, so its
// peak RSS stays near the context replay's however many messages were said
// (the json format keeps them all: BenchmarkReplayTranscriptJSON100MB).
func BenchmarkReplayTranscript100MB(b *testing.B) {
	benchBinary(b, 100, "replay", "--view", "transcript", "--format", "jsonl")
}

func BenchmarkReplayTranscriptJSON100MB(b *testing.B) {
	benchBinary(b, 100, "replay", "--view", "transcript", "--format", "json")
}

// In-process: logfmt alone, no process start-up.
func BenchmarkValidateInProcess100MB(b *testing.B) {
	path, n := writeBenchLog(b, b.TempDir(), benchSize(b, 100))
	benchValidateInProcess(b, path, n)
}

func BenchmarkValidateInProcessShortLines100MB(b *testing.B) {
	path, n := writeShortLineLog(b, b.TempDir(), benchSize(b, 100))
	benchValidateInProcess(b, path, n)
}

func benchValidateInProcess(b *testing.B, path string, n int64) {
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := logfmt.ValidateFile(path, logfmt.ValidateOptions{})
		if err != nil || len(rep.Issues) != 0 {
			b.Fatalf("%v %+v", err, rep.Issues)
		}
	}
}

func BenchmarkReplayInProcess100MB(b *testing.B) {
	path, n := writeBenchLog(b, b.TempDir(), benchSize(b, 100))
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := logfmt.ReplayFile(path, logfmt.ReplayOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchLogIsValid keeps the benchmark honest: the generated log is a
// clean trail log, so the benchmarks measure the common path.
func TestBenchLogIsValid(t *testing.T) {
	short, _ := writeShortLineLog(t, t.TempDir(), 1<<20)
	if rep, err := logfmt.ValidateFile(short, logfmt.ValidateOptions{}); err != nil || len(rep.Issues) != 0 {
		t.Fatalf("short lines: %v %+v", err, rep.Issues)
	}
	path, _ := writeBenchLog(t, t.TempDir(), 1<<20)
	rep, err := logfmt.ValidateFile(path, logfmt.ValidateOptions{})
	if err != nil || len(rep.Issues) != 0 {
		t.Fatalf("%v %+v", err, rep.Issues)
	}
	r, err := logfmt.ReplayFile(path, logfmt.ReplayOptions{})
	if err != nil || len(r.Messages) == 0 || !strings.HasPrefix(strconv.Quote(string(r.Messages[0])), `"{\"id\"`) {
		t.Fatalf("%v", err)
	}
	if payloads, _ := filepath.Glob(filepath.Join(filepath.Dir(path), benchSession+".payloads", "*.json")); len(payloads) == 0 {
		t.Error("no payload file: the benchmark would not exercise payload checks")
	}
}
