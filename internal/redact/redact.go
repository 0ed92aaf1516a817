// Package redact removes credentials from URLs before they are logged or
// written: a URL's user information (user:password@, or a bare token@)
// becomes "***@".
package redact

import (
	"net/url"
	"strings"
)

// URL returns raw with its user information replaced by "***". A string
// that does not parse as a URL keeps only what follows its last "@".
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "***@" + raw[i+1:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	u.User = nil
	return strings.Replace(u.String(), "//", "//***@", 1)
}
