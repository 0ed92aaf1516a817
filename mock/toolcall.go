package mock

import (
	"bytes"
	"encoding/json"
)

// Tool calls. A request with tools whose tool_choice requires a call (or,
// with "auto", one request in Config.ToolCallRate, drawn from (Seed, k))
// is answered with one call of one tool (the named one, else one drawn
// from the same draw) instead of text. Its arguments are the request's
// output tokens as a JSON object with one string property (the first
// property of the tool's parameters schema, else "input"):
// {"<property>":" the of and ..."}; the first step carries the opening
// and the last one the closing, so every step is one delta event.

// A Responses tool whose type is not "function" (web_search, shell,
// code_interpreter, mcp, …) is a built-in tool the server runs itself:
// when the draw picks it, the server runs it for Config.ServerToolTime
// and then answers in text (GuideLLM's server-side tool calls), so the
// client sees no call, only a later first token.

// toolDef is a tool a request offers: its name and the property its
// arguments fill; a built-in (hosted) tool is named by its type.
type toolDef struct {
	name, param string
	hosted      bool
}

// toolMode is what tool_choice asks for.
type toolMode uint8

const (
	toolNone     toolMode = iota // no tools, or tool_choice "none"
	toolAuto                     // the model decides: Config.ToolCallRate
	toolRequired                 // "required" (Anthropic: "any")
	toolNamed                    // a named function
)

type toolChoice struct {
	mode  toolMode
	named int // toolNamed: the index in tools
}

type rawTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Parameters  json.RawMessage `json:"parameters"`
	InputSchema json.RawMessage `json:"input_schema"` // Messages
	Function    *struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"` // chat
}

type rawToolChoice struct {
	Type     string `json:"type"`
	Name     string `json:"name"` // Responses, Messages
	Function *struct {
		Name string `json:"name"`
	} `json:"function"` // chat
}

// parseTools reads tools and tool_choice in api's forms: chat's
// {"type":"function","function":{"name",...}} tools and "none", "auto",
// "required" or {"type":"function","function":{"name"}}; Responses'
// {"type":"function","name",...} and {"type":"function","name"};
// Anthropic's {"name","input_schema"} and {"type":"auto"|"any"|"tool"|"none"}.
func parseTools(tools, choice json.RawMessage, api apiKind) ([]toolDef, toolChoice, *apiError) {
	tools, choice = bytes.TrimSpace(tools), bytes.TrimSpace(choice)
	var defs []toolDef
	if len(tools) > 0 && !bytes.Equal(tools, []byte("null")) {
		var raw []rawTool
		if err := json.Unmarshal(tools, &raw); err != nil {
			return nil, toolChoice{}, badRequest("tools", "tools must be an array of tool definitions: %v", err)
		}
		for i, t := range raw {
			name, schema := t.Name, t.Parameters
			switch {
			case api == apiChat && t.Function != nil:
				name, schema = t.Function.Name, t.Function.Parameters
			case api == apiMessages:
				schema = t.InputSchema
			case api == apiResponses && t.Type != "" && t.Type != "function":
				defs = append(defs, toolDef{name: t.Type, hosted: true})
				continue
			}
			if name == "" {
				return nil, toolChoice{}, badRequest("tools", "tools[%d] has no function name", i)
			}
			defs = append(defs, toolDef{name: name, param: firstProperty(schema)})
		}
	}
	tc := toolChoice{mode: toolNone}
	if len(defs) > 0 {
		tc.mode = toolAuto
	}
	if len(choice) == 0 || bytes.Equal(choice, []byte("null")) {
		return defs, tc, nil
	}
	var name string
	if choice[0] == '"' {
		var s string
		if err := json.Unmarshal(choice, &s); err != nil {
			return nil, tc, badRequest("tool_choice", "tool_choice is not a valid JSON string: %v", err)
		}
		switch s {
		case "none":
			tc.mode = toolNone
		case "auto":
		case "required":
			tc.mode = toolRequired
		default:
			return nil, tc, badRequest("tool_choice", `tool_choice must be "none", "auto", "required" or a named function, got %q`, s)
		}
	} else {
		var raw rawToolChoice
		if err := json.Unmarshal(choice, &raw); err != nil {
			return nil, tc, badRequest("tool_choice", "tool_choice must be a string or an object naming a function: %v", err)
		}
		switch {
		case api == apiMessages && raw.Type == "auto":
		case api == apiMessages && raw.Type == "none":
			tc.mode = toolNone
		case api == apiMessages && raw.Type == "any":
			tc.mode = toolRequired
		case api == apiMessages && raw.Type == "tool", api == apiResponses && raw.Type == "function":
			name = raw.Name
		case api == apiResponses && raw.Type != "":
			name = raw.Type // a built-in tool, named by its type
		case api == apiChat && raw.Type == "function" && raw.Function != nil:
			name = raw.Function.Name
		default:
			return nil, tc, badRequest("tool_choice", "tool_choice must name a function, got type %q", raw.Type)
		}
		if name != "" {
			tc.mode, tc.named = toolNamed, -1
			for i, d := range defs {
				if d.name == name {
					tc.named = i
					break
				}
			}
			if tc.named < 0 {
				return nil, tc, badRequest("tool_choice", "tool_choice names %q, which is not in tools", name)
			}
		}
	}
	if tc.mode != toolNone && len(defs) == 0 {
		return nil, tc, badRequest("tool_choice", "tool_choice needs tools: give the tools to choose from")
	}
	return defs, tc, nil
}

// firstProperty returns the first property name of a JSON schema's
// "properties", or "input".
func firstProperty(schema json.RawMessage) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "input"
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "input"
	}
	if t, err := dec.Token(); err == nil {
		if k, ok := t.(string); ok && k != "" {
			return k
		}
	}
	return "input"
}

// chooseTool returns the index of the tool request k calls, or -1 for a
// text answer: the named tool; for "required" one drawn from (Seed, k);
// for "auto" the same, in a fraction ToolCallRate of the requests. The
// draw is apart from the request's other draws, which it does not shift.
func chooseTool(cfg *Config, req *request, k uint64) int {
	if req.choice.mode == toolNone {
		return -1
	}
	if req.choice.mode == toolNamed {
		return req.choice.named
	}
	d := splitmix64(k ^ splitmix64(cfg.Seed^0x746f6f6c63616c6c))
	if req.choice.mode == toolAuto && float64(d>>11)/(1<<53) >= cfg.ToolCallRate {
		return -1
	}
	return int(splitmix64(d) % uint64(len(req.tools)))
}

// setTool makes the renderer answer with a call of t.
func (r *renderer) setTool(t toolDef) {
	r.tool = true
	r.finish = "tool_calls"
	r.toolNameRaw = t.name
	r.toolName = jsonString(t.name)
	open := append(append([]byte{'{'}, jsonString(t.param)...), `:"`...)
	r.argsOpenRaw = string(open)
	esc := jsonString(r.argsOpenRaw)
	r.argsOpen = esc[1 : len(esc)-1]
}

// argsClose closes the arguments object, raw and inside a JSON string.
const (
	argsCloseRaw = `"}`
	argsCloseEsc = `\"}`
)

// appendArgsDelta appends step i's part of the arguments, inside a JSON
// string.
func (r *renderer) appendArgsDelta(b []byte, i int) []byte {
	if i == 0 {
		b = append(b, r.argsOpen...)
	}
	b = r.appendText(b, i)
	if i == r.steps()-1 {
		b = append(b, argsCloseEsc...)
	}
	return b
}

// appendFullArgs appends the whole arguments: raw JSON, or escaped inside
// a JSON string.
func (r *renderer) appendFullArgs(b []byte, escaped bool) []byte {
	if escaped {
		b = append(b, r.argsOpen...)
	} else {
		b = append(b, r.argsOpenRaw...)
	}
	b = r.appendFullText(b)
	if escaped {
		return append(b, argsCloseEsc...)
	}
	return append(b, argsCloseRaw...)
}

// appendCallID appends the call's id with prefix (chatcmpl-tool-, call_,
// fc_, toolu_).
func (r *renderer) appendCallID(b []byte, prefix string) []byte {
	b = append(b, prefix...)
	b = appendHex64(b, r.idLo^0x5bd1e995)
	return appendHex64(b, r.idHi)
}
