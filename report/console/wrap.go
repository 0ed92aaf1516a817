package console

import "github.com/goodput-dev/goodput/internal/texttable"

// Wrap wraps every line of s longer than cols columns (0: no limit) at
// its spaces, as Write does (texttable.Wrap): a continuation is indented
// two columns past the line's own indent, a long word is broken after its
// commas, and one that cannot be (a URL) stays whole.
func Wrap(s string, cols int) string { return texttable.Wrap(s, cols) }
