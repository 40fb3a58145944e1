package wiretest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"trail/core/provider"
)

// FuzzStream is an HTTP provider's stream fuzz target, shared by every
// provider that streams through wire: seeded with the recorded transcripts
// testdata/providers/<dir>/<name>, it serves the bytes the fuzzer makes as
// the response body to the provider build makes on the given client, and
// fails when Call returns both an answer and an error, or neither (a panic
// fails it too): whatever the server streams, the user gets one of them.
func FuzzStream(f *testing.F, dir string, names []string, req *provider.Request, build func(*http.Client) (provider.Provider, error)) {
	f.Helper()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(Root(), "testdata", "providers", dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := build(&http.Client{Transport: BodyTransport(data)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Call(context.Background(), req, &Sink{})
		if (resp == nil) == (err == nil) {
			t.Fatalf("resp %v, err %v: want exactly one", resp, err)
		}
	})
}
