package store

import "testing"

func TestMarshalJSONLeavesHTMLAndNoNewline(t *testing.T) {
	got, err := MarshalJSON(map[string]any{"t": "<b>&</b>", "n": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":[1,2],"t":"<b>&</b>"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := MarshalJSON(make(chan int)); err == nil {
		t.Error("a channel encoded without an error")
	}
}
