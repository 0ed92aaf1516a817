package mock

import (
	"fmt"
	"strings"
)

// LoRAModule is a LoRA adapter the mock serves as an extra model (vLLM's
// --lora-modules name=path). The mock does not load it: requests naming
// it are served like the base model's.
type LoRAModule struct {
	Name string
	Path string // reported as the model's root
}

// ParseLoRAModule reads vLLM's name=path form (a bare name serves the
// adapter under its own name, with the name as its path).
func ParseLoRAModule(s string) (LoRAModule, error) {
	name, path, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		path = name
	}
	if name == "" || path == "" {
		return LoRAModule{}, fmt.Errorf("LoRA module %q: want name=path", s)
	}
	return LoRAModule{Name: name, Path: path}, nil
}

// validateLoRA checks that adapter names are unique and not the base
// model's.
func (c *Config) validateLoRA() error {
	seen := map[string]bool{c.Model: true}
	for _, m := range c.LoRAModules {
		if strings.TrimSpace(m.Name) == "" {
			return configErr("LoRAModules", "an adapter has an empty name")
		}
		if seen[m.Name] {
			return configErr("LoRAModules", "%q is served twice (or is the base model)", m.Name)
		}
		seen[m.Name] = true
	}
	return nil
}

// serves reports whether requests may name model: the base model or an
// adapter.
func (c *Config) serves(model string) bool {
	if model == c.Model {
		return true
	}
	for _, m := range c.LoRAModules {
		if m.Name == model {
			return true
		}
	}
	return false
}

// appendLoRAModels appends the adapters' entries of GET /v1/models, as
// vLLM lists them (root the adapter's path, parent the base model).
func (s *Server) appendLoRAModels(b []byte) []byte {
	for _, m := range s.cfg.LoRAModules {
		b = append(b, `,{"id":`...)
		b = appendJSONString(b, m.Name)
		b = append(b, `,"object":"model","created":`...)
		b = appendInt(b, s.started.Unix())
		b = append(b, `,"owned_by":"goodput","root":`...)
		b = appendJSONString(b, m.Path)
		b = append(b, `,"parent":`...)
		b = append(b, s.modelJSON...)
		b = append(b, `,"max_model_len":`...)
		b = appendInt(b, int64(s.cfg.MaxModelLen))
		b = append(b, `,"permission":[]}`...)
	}
	return b
}

// responseModel is the model a response names: the adapter the request
// named, else the base model.
func (s *Server) responseModel(req *request) string {
	if req.lora == "" {
		return s.modelJSON
	}
	return jsonString(req.lora)
}
