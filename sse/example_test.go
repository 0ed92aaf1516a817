package sse_test

import (
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/sse"
)

// A client's read loop: feed the body as it arrives, decode each event's
// data, and finish at end of stream.
func Example() {
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		": keep-alive\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n" +
		"data: [DONE]" // no final blank line: Finish still delivers it

	p := sse.NewParser()
	var c sse.Chunk
	var text strings.Builder
	emit := func(e *sse.Event) error {
		if err := sse.DecodeChunk(e.Data, &c); err != nil {
			return err
		}
		switch {
		case c.Done:
			fmt.Println("done")
		case c.Err != nil:
			return c.Err
		case c.HasToken():
			text.Write(c.Content)
		}
		if c.Usage.Present {
			fmt.Println("completion tokens so far:", c.Usage.CompletionTokens)
		}
		return nil
	}
	// Network reads split the stream anywhere.
	for _, read := range []string{body[:30], body[30:131], body[131:]} {
		if err := p.Feed([]byte(read), emit); err != nil {
			fmt.Println("error:", err)
			return
		}
	}
	if err := p.Finish(emit); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("text: %q\n", text.String())
	// Output:
	// completion tokens so far: 1
	// completion tokens so far: 2
	// done
	// text: "Hello world"
}
