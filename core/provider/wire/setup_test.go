package wire

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"trail/core/errs"
)

func TestEndpointJoinsThePathAndKeepsTheQuery(t *testing.T) {
	tests := []struct {
		name, base, want string
	}{
		{"no base: the default", "", "https://api.example.com/v1/chat/completions"},
		{"a server root", "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/chat/completions"},
		{"a trailing slash", "http://localhost:11434/v1/", "http://localhost:11434/v1/v1/chat/completions"},
		{"a proxy that wants a query keeps it after the path", "https://proxy.example/openai?api-version=2024-10-21",
			"https://proxy.example/openai/v1/chat/completions?api-version=2024-10-21"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Endpoint(tt.base, "https://api.example.com", "/v1/chat/completions", nil)
			if err != nil || got != tt.want {
				t.Errorf("Endpoint(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
			}
		})
	}
}

func TestEndpointRefusesABaseWithoutSchemeOrHost(t *testing.T) {
	for _, base := range []string{"localhost:11434/v1", "127.0.0.1:11434/v1", "ftp://host/v1", "http:///v1", "http://[::1", "api.example.com?key=" + testKey} {
		_, err := Endpoint(base, "https://api.example.com", "/v1/messages", []string{testKey})
		var ue *errs.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Endpoint(%q): err = %v, want a usage error", base, err)
			continue
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("Endpoint(%q): the error shows the key: %v", base, err)
		}
		if !strings.Contains(ue.Hint(), "http://localhost:11434/v1") {
			t.Errorf("Endpoint(%q): hint %q shows no example", base, ue.Hint())
		}
	}
}

// A base URL pasted by mistake (a whole document) is quoted cut to 200
// characters with its length, as every error quoting user input is.
func TestEndpointQuotesALongBaseCut(t *testing.T) {
	base := "localhost:11434/" + strings.Repeat("v", 5000)
	_, err := Endpoint(base, "https://api.example.com", "/v1/messages", nil)
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "… (5016 bytes)") {
		t.Fatalf("err = %.500v, want the base cut to 200 characters", err)
	}
}

// A proxy that takes a token in the query or the user info must not see
// it printed when the connection fails.
func TestConnectionErrorsHideQueryAndUserInfo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the dial fails
	c := NewClient("acme", nil, Options{MaxRetries: 0})
	_, err = c.Open(context.Background(), Post("http://bob:hunter22@"+addr+"/v1/x?token=tok-31337", []byte("{}"), nil), nil)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	for _, secret := range []string{"hunter22", "tok-31337", "bob"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "connection to http://"+addr+"/v1/x failed") {
		t.Errorf("error = %v, want it to name the host and path", err)
	}
}
