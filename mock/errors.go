package mock

import (
	"fmt"
	"net/http"
	"strconv"
)

// apiError is an OpenAI-style error answered before any stream byte.
type apiError struct {
	status  int
	typ     string // OpenAI/vLLM error type, e.g. "BadRequestError"
	message string
	param   string // offending request field, "" for none
}

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "BadRequestError", message: fmt.Sprintf(format, args...), param: param}
}

// writeAPIError writes an OpenAI-style error body, as vLLM does:
// {"error":{"message":...,"type":...,"param":...,"code":status}}.
func writeAPIError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, appendErrorBody(make([]byte, 0, 256), e))
}

func appendErrorBody(b []byte, e *apiError) []byte {
	b = append(b, `{"error":{"message":`...)
	b = appendJSONString(b, e.message)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.typ)
	b = append(b, `,"param":`...)
	if e.param == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, e.param)
	}
	b = append(b, `,"code":`...)
	b = appendInt(b, int64(e.status))
	return append(b, "}}"...)
}

// injectedError is the body of an injected HTTP error.
func injectedError(status int) *apiError {
	return &apiError{status: status, typ: errorType(status),
		message: "goodput mock: injected fault (HTTP " + strconv.Itoa(status) + ")"}
}

// errorType names the OpenAI error type of an HTTP status.
func errorType(status int) string {
	switch status {
	case 400:
		return "BadRequestError"
	case 401:
		return "AuthenticationError"
	case 403:
		return "PermissionDeniedError"
	case 404:
		return "NotFoundError"
	case 409:
		return "ConflictError"
	case 422:
		return "UnprocessableEntityError"
	case 429:
		return "RateLimitError"
	case 500:
		return "InternalServerError"
	case 503:
		return "ServiceUnavailableError"
	}
	if status >= 500 {
		return "InternalServerError"
	}
	return "APIError"
}
