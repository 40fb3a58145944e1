package logfmt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeLog(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func scanOf(t *testing.T, path string, from int64) *Scan {
	t.Helper()
	sc, err := ScanLog(path, from)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// seqLine is a trail line (with seq) of session s.
func seqLine(seq int, event, data string) string {
	s := `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"` + event + `","seq":` + itoa(seq)
	if data != "" {
		s += "," + data
	}
	return s + "}"
}

func TestScanFindsWhatAKilledStepLeftOpen(t *testing.T) {
	answered := logOf(
		seqLine(0, "provider_request", `"executionId":"e1","conversationId":"main","round":1,"provider":"anthropic"`),
		seqLine(1, "provider_native_raw_payload", `"executionId":"e1","round":1,"payloadKind":"stream_event"`),
		seqLine(2, "provider_response_raw", `"executionId":"e1","round":1`),
		seqLine(3, "provider_response_normalized", `"executionId":"e1","round":1`),
		seqLine(4, "history_mutation", `"mutation":"append_message","index":0,"message":{"role":"user"}`),
	)
	killed := logOf(
		seqLine(5, "tool_execution_request", `"executionId":"e1","conversationId":"main","round":1,"batchId":"b1","index":0,"toolName":"Write","toolCallId":"toolu_1"`),
		seqLine(6, "tool_execution_request", `"executionId":"e1","conversationId":"main","round":1,"batchId":"b1","index":1,"toolName":"Bash","toolCallId":"toolu_2"`),
		seqLine(7, "tool_execution_result", `"executionId":"e1","toolCallId":"toolu_2","success":true`),
		seqLine(8, "provider_request", `"executionId":"e1","conversationId":"main","round":2,"provider":"anthropic"`),
		seqLine(9, "provider_native_raw_payload", `"executionId":"e1","round":2,"payloadKind":"request"`),
		seqLine(10, "provider_native_raw_payload", `"executionId":"e1","round":2,"payloadKind":"stream_event"`),
	)
	path := writeLog(t, answered+killed)

	sc := scanOf(t, path, 0)
	if !sc.Aligned || sc.Lines != 11 || sc.FirstSeq != 0 || sc.Mutations != 1 {
		t.Fatalf("scan %+v", sc)
	}
	if len(sc.Open) != 2 {
		t.Fatalf("open %+v", sc.Open)
	}
	tool, prov := sc.Open[0], sc.Open[1]
	if !tool.Tool || tool.ExecutionID != "e1" || tool.ToolCallID != "toolu_1" || tool.ToolName != "Write" || tool.BatchID != "b1" ||
		string(tool.Index) != "0" || string(tool.Round) != "1" || tool.ConversationID != "main" || !slices.Equal(tool.Missing, []string{EventToolResult}) {
		t.Errorf("open tool %+v", tool)
	}
	// The stream event answers the native payload; a request payload answers nothing.
	if prov.Tool || prov.ExecutionID != "e1" || string(prov.Round) != "2" || prov.Provider != "anthropic" || prov.Line != 9 ||
		!slices.Equal(prov.Missing, []string{EventResponseRaw, EventResponseNormalized}) {
		t.Errorf("open provider request %+v", prov)
	}

	// From the end of the answered part: the same keys, no mutation, and
	// the first line's seq.
	tail := scanOf(t, path, int64(len(answered)))
	if !tail.Aligned || tail.Lines != 6 || tail.FirstSeq != 5 || tail.Mutations != 0 || len(tail.Open) != 2 {
		t.Errorf("tail scan %+v", tail)
	}
}

func TestScanOffsets(t *testing.T) {
	first := seqLine(0, "user", `"content":"a"`) + "\n"
	path := writeLog(t, first+seqLine(1, "user", `"content":"b"`)+"\n")
	if sc := scanOf(t, path, 3); sc.Aligned {
		t.Errorf("an offset inside a line reads as aligned: %+v", sc)
	}
	if sc := scanOf(t, path, 1<<20); sc.Aligned || sc.Lines != 0 {
		t.Errorf("an offset past the end reads as aligned: %+v", sc)
	}
	end := int64(len(first)) * 2
	if sc := scanOf(t, path, end); !sc.Aligned || sc.Lines != 0 || sc.FirstSeq != -1 {
		t.Errorf("the end of the log: %+v", sc)
	}
	// A Robota line has no seq.
	path = writeLog(t, logOf(ev(0, "session_init", `"cwd":"/"`)))
	if sc := scanOf(t, path, 0); sc.FirstSeq != -1 || sc.Lines != 1 {
		t.Errorf("Robota log: %+v", sc)
	}
}

func TestScanKeysFollowValidation(t *testing.T) {
	// Order does not matter, a closed key stays closed, and what validation
	// does not count as a key (no executionId, a round that is not a
	// number) is not open either.
	log := logOf(
		ev(0, "provider_response_raw", `"executionId":"e","round":1`),
		ev(0, "provider_response_normalized", `"executionId":"e","round":1`),
		ev(0, "provider_native_raw_payload", `"executionId":"e","round":1,"payloadKind":"response"`),
		ev(1, "provider_request", `"executionId":"e","round":1`),
		ev(2, "provider_request", `"round":2`),
		ev(3, "provider_request", `"executionId":"e","round":"3"`),
		ev(4, "tool_execution_result", `"executionId":"e","toolExecutionId":"x"`),
		ev(5, "tool_execution_request", `"executionId":"e","toolExecutionId":"x"`),
		ev(6, "tool_execution_request", `"executionId":"e","toolExecutionId":"y"`),
	)
	sc := scanOf(t, writeLog(t, log), 0)
	if len(sc.Open) != 1 || sc.Open[0].ToolCallID != "y" || !sc.Open[0].Tool {
		t.Fatalf("open %+v", sc.Open)
	}
	// The validator reports exactly the same key.
	if rep := validateString(t, log); len(rep.Issues) != 1 || rep.Issues[0].Code != CodeToolResultMissing || !strings.Contains(rep.Issues[0].Message, "e:y") {
		t.Errorf("validation: %s", issuesText(rep))
	}
}
