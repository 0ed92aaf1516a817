package sse

import "bytes"

// Member names read by DecodeTranscriptionEvent.
var (
	transcriptKeys      = [...]string{"type", "delta", "usage"}
	transcriptUsageKeys = [...]string{"input_tokens", "output_tokens"}
)

// DecodeTranscriptionEvent decodes one event of a streamed audio
// transcription into c, which it Resets first: OpenAI's typed events
//
//	transcript.text.delta   Content (delta)
//	transcript.text.done    Usage (usage.input_tokens, output_tokens), FinishReason stop, Done
//
// or, for any other payload, a chat-style chunk as vLLM streams it
// (DecodeChunk). On error c is left Reset.
func DecodeTranscriptionEvent(data []byte, c *Chunk) error {
	if !bytes.Contains(data, []byte(`"transcript.text.`)) {
		return DecodeChunk(data, c)
	}
	c.Reset()
	err := c.transcriptEvent(data)
	if err != nil {
		c.Reset()
	}
	return err
}

func (c *Chunk) transcriptEvent(data []byte) error {
	var v [len(transcriptKeys)]rawVal
	d, err := c.scanTop(data, transcriptKeys[:], v[:])
	if err != nil {
		return err
	}
	typ, err := d.strAt(v[0], "type")
	if err != nil {
		return err
	}
	c.Type = typ
	switch string(typ) {
	case "transcript.text.delta":
		c.Content, err = d.strAt(v[1], "delta")
		return err
	case "transcript.text.done":
		c.Done, c.FinishReason = true, finishStop
		var u [len(transcriptUsageKeys)]rawVal
		present, err := d.objAt(v[2], "usage", transcriptUsageKeys[:], u[:])
		if err != nil || !present {
			return err
		}
		in, okIn, err := d.intAt(u[0], "usage.input_tokens")
		if err != nil {
			return err
		}
		out, okOut, err := d.intAt(u[1], "usage.output_tokens")
		if err != nil {
			return err
		}
		if okIn || okOut {
			c.Usage.Present = true
			c.Usage.PromptTokens, c.Usage.CompletionTokens = int(in), int(out)
			c.Usage.TotalTokens = int(in + out)
			c.Usage.NoPrompt = !okIn
		}
	}
	return nil
}
