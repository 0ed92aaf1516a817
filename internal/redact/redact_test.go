package redact

import "testing"

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"http://user:sk-secret@host:8000/metrics", "http://***@host:8000/metrics"},
		{"https://tok3n@host/x?q=1", "https://***@host/x?q=1"},
		{"http://us er:pa ss@host\x7f", "***@host\x7f"},
		{"not a url", "not a url"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
