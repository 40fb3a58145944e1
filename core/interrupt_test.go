package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/tools"
)

// cancelTool cancels the step while it runs, as Ctrl-C during a tool does.
type cancelTool struct{ cancel context.CancelFunc }

func (cancelTool) Schema() chat.ToolSchema { return chat.ToolSchema{Name: "Cancel"} }
func (c cancelTool) Run(context.Context, json.RawMessage, tools.Env) tools.Result {
	c.cancel()
	return tools.Result{Success: true, Output: "stopped"}
}

// An interrupt while a round's tools run commits the round whole (each
// call has its result, later ones "Aborted before start") and ends the
// step: nothing is sent to the model again.
func TestInterruptDuringToolsCommitsTheRoundAndStops(t *testing.T) {
	b := newBench(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.e.Tools = append(b.e.Tools, cancelTool{cancel})
	calls := []chat.ToolCall{call("call_1", "Cancel")}
	for i := 2; i <= maxParallelTools+1; i++ {
		calls = append(calls, call("call_"+string(rune('0'+i)), "Bash", "command", "sleep 0"))
	}
	b.p.then(use(calls...))
	o := b.opts([]func(*StepOptions){func(o *StepOptions) { o.PermissionMode = "bypassPermissions" }})
	o.Prompt = "go"
	res, err := b.e.Step(ctx, o)
	if !errors.Is(err, errs.ErrInterrupted) || res.Subtype != SubtypeInterrupted {
		t.Fatalf("res %+v err %v", res, err)
	}
	if len(b.p.reqs) != 1 {
		t.Fatalf("%d provider calls after the interrupt", len(b.p.reqs))
	}
	b.wantRoles(res.SessionID, "system user assistant"+strings.Repeat(" tool", len(calls)))
	aborted := 0
	for _, c := range calls {
		if strings.Contains(b.toolContent(res.SessionID, c.ID), "Aborted before start") {
			aborted++
		}
	}
	if aborted == 0 {
		t.Fatal("no call was aborted before it started")
	}
	b.consistent(res.SessionID)
}

// An interrupt while the person is asked ends the question at once: the
// call is denied as interrupted (the person did not decline it), the
// round committed.
func TestInterruptWhileAskingDeniesTheCall(t *testing.T) {
	b := newBench(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.e.Terminal = &fakeTerminal{block: true}
	b.p.then(func(_ context.Context, _ *provider.Request, _ provider.Sink) (*provider.Response, error) {
		go cancel() // Ctrl-C while the question waits
		return &provider.Response{ToolCalls: []chat.ToolCall{call("call_1", "Bash", "command", "rm -rf x")}}, nil
	})
	o := b.opts(nil)
	o.Prompt = "go"
	res, err := b.e.Step(ctx, o)
	if !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("res %+v err %v", res, err)
	}
	if c := b.toolContent(res.SessionID, "call_1"); !strings.Contains(c, "interrupted trail at the approval question") && !strings.Contains(c, "Aborted") {
		t.Fatalf("result %s", c)
	}
	b.consistent(res.SessionID)
}
