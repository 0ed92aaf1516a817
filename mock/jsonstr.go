package mock

import (
	"strconv"

	"github.com/goodput-dev/goodput/record"
)

// appendJSONString appends s as a quoted JSON string (record's escaper:
// control characters, quotes and backslashes escaped, invalid UTF-8 as
// U+FFFD, as encoding/json does).
func appendJSONString(b []byte, s string) []byte { return record.AppendJSONString(b, s) }

// jsonString returns s as a quoted JSON string.
func jsonString(s string) string {
	return string(appendJSONString(nil, s))
}

// appendInt appends the decimal form of v.
func appendInt(b []byte, v int64) []byte {
	return strconv.AppendInt(b, v, 10)
}
