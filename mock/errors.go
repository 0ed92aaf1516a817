package mock

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// apiError is an OpenAI-style error answered before any stream byte.
type apiError struct {
	status  int
	typ     string // OpenAI/vLLM error type, e.g. "BadRequestError"
	message string
	param   string // offending request field, "" for none
	code    string // OpenAI's error code; "" sends the status, as vLLM does
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
	if e.code != "" {
		b = appendJSONString(b, e.code)
	} else {
		b = appendInt(b, int64(e.status))
	}
	return append(b, "}}"...)
}

// writeError writes e in the form of the API the request came in on:
// Anthropic's {"type":"error","error":{"type":...,"message":...}} for
// Messages, else OpenAI's (vLLM's) form.
func writeError(w http.ResponseWriter, api apiKind, e *apiError) {
	if api != apiMessages {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, e.status, appendAnthropicError(make([]byte, 0, 256), e))
}

func appendAnthropicError(b []byte, e *apiError) []byte {
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, anthropicErrorType(e))
	b = append(b, `,"message":`...)
	b = appendJSONString(b, e.message)
	return append(b, "}}"...)
}

// anthropicErrorType names Anthropic's error type of e's status (e's own
// type when it is one already).
func anthropicErrorType(e *apiError) string {
	if strings.HasSuffix(e.typ, "_error") {
		return e.typ
	}
	switch e.status {
	case 400, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 503, 529:
		return "overloaded_error"
	}
	return "api_error"
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
