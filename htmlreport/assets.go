package htmlreport

import (
	"crypto/sha256"
	_ "embed" // the page's stylesheet and script
	"encoding/base64"
)

// The page's only stylesheet and script, embedded so that a report needs
// nothing but itself.
var (
	//go:embed assets/style.css
	styleCSS string
	//go:embed assets/script.js
	scriptJS string
)

// cspHash is the Content-Security-Policy source expression that allows
// exactly the inline element whose content is s.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}
