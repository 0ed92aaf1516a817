package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/goodput-dev/goodput/reqtype"
)

// Content extras (GuideLLM's extras.content): some chat templates need
// metadata beside the text of each content object (translategemma's
// source_lang_code and target_lang_code). With ClientConfig.ContentExtras
// every user message of a chat or Responses request, history included,
// is sent as content parts whose text part carries those members:
//
//	chat        {"role":"user","content":[{"type":"text","text":"…","source_lang_code":"en"}]}
//	responses   {"role":"user","content":[{"type":"input_text","text":"…","source_lang_code":"en"}]}
//
// System, assistant and tool messages keep their plain form, as in
// GuideLLM. These bodies are rendered per request, not cached.

// contentExtras checks a ContentExtras object and returns its members as
// body text (`,"k":v,…`, keys sorted).
func contentExtras(s string, rt *reqtype.Type) ([]byte, error) {
	if rt.API != reqtype.APIChat && rt.API != reqtype.APIResponses {
		return nil, fmt.Errorf("content extras: only chat completions and Responses requests have text content objects, not %s", rt.Name)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf(`content extras: want a JSON object, e.g. {"source_lang_code":"en"}`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k == "type" || k == "text" {
			return nil, fmt.Errorf("content extras: %q is the content part's own field", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	for _, k := range keys {
		b = append(appendJSONStr(append(b, ','), k), ':')
		var c bytes.Buffer
		if err := json.Compact(&c, m[k]); err != nil {
			return nil, fmt.Errorf("content extras: %s: %v", k, err)
		}
		b = append(b, c.Bytes()...)
	}
	return b, nil
}

// appendTextPart appends a text content part that carries parts (the
// content extras), the Responses API's input_text for api.
func appendTextPart(b []byte, api Endpoint, text string, parts []byte) []byte {
	if api == EndpointResponses {
		b = append(b, `{"type":"input_text","text":`...)
	} else {
		b = append(b, `{"type":"text","text":`...)
	}
	b = appendJSONStr(b, text)
	b = append(b, parts...)
	return append(b, '}')
}

// appendUserContent appends a user message's content: the JSON string,
// or with parts a list of one text part.
func appendUserContent(b []byte, api Endpoint, text string, parts []byte) []byte {
	if parts == nil {
		return appendJSONStr(b, text)
	}
	return append(appendTextPart(append(b, '['), api, text, parts), ']')
}

// appendWithParts appends req's messages for the chat ("messages":…) or
// Responses ("input":…) API with every user message's text a content
// part carrying parts, the media in the last user message.
func appendWithParts(b []byte, api Endpoint, req *Request, parts []byte) []byte {
	if api == EndpointResponses {
		b = append(b, `"input":`...)
		if len(req.Media) == 0 && req.hasTools() {
			return appendResponsesItems(b, req.Messages, parts)
		}
	} else {
		b = append(b, `"messages":`...)
	}
	last := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	b = append(b, '[')
	for i, m := range req.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		if api == EndpointChat && (m.ToolCalls != nil || m.ToolCallID != "") {
			b = appendChatToolMessage(b, m)
			continue
		}
		b = append(b, `{"role":`...)
		b = appendJSONStr(b, m.Role)
		b = append(b, `,"content":`...)
		switch {
		case i == last && len(req.Media) > 0:
			b = appendMediaContent(b, api, m.Content, req.Media, parts)
		case m.Role == "user":
			b = appendUserContent(b, api, m.Content, parts)
		default:
			b = appendJSONStr(b, m.Content)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
