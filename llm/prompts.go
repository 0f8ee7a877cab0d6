package llm

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"text/template"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

// Prompt is a versioned prompt: a template with "system" and "user"
// parts, and the JSON schema of the answer it asks for (none for a
// prompt asking for plain text, such as "ocr_v1").
type Prompt struct {
	Name   string
	tmpl   *template.Template
	Schema json.RawMessage
}

// LoadPrompt returns the prompt called name (such as "split_v1" or
// "propositions_v1"), from the templates kept in the repository; a
// prompt without a NAME.schema.json asks for a plain answer.
func LoadPrompt(name string) (*Prompt, error) {
	src, err := promptFS.ReadFile("prompts/" + name + ".tmpl")
	if err != nil {
		return nil, fmt.Errorf("llm: no prompt %q", name)
	}
	t, err := template.New(name).Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("llm: prompt %q: %w", name, err)
	}
	schema, err := promptFS.ReadFile("prompts/" + name + ".schema.json")
	if errors.Is(err, fs.ErrNotExist) {
		return &Prompt{Name: name, tmpl: t}, nil // a plain answer
	}
	if err != nil {
		return nil, fmt.Errorf("llm: prompt %q: %w", name, err)
	}
	if !json.Valid(schema) {
		return nil, fmt.Errorf("llm: prompt %q: schema is not JSON", name)
	}
	return &Prompt{Name: name, tmpl: t, Schema: schema}, nil
}

// Messages renders the prompt's system and user messages with data.
func (p *Prompt) Messages(data any) ([]Message, error) {
	var sys, user bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&sys, "system", data); err != nil {
		return nil, fmt.Errorf("llm: prompt %q: %w", p.Name, err)
	}
	if err := p.tmpl.ExecuteTemplate(&user, "user", data); err != nil {
		return nil, fmt.Errorf("llm: prompt %q: %w", p.Name, err)
	}
	return []Message{{Role: "system", Content: sys.String()}, {Role: "user", Content: user.String()}}, nil
}

// Request renders the prompt into a request asking for its schema.
func (p *Prompt) Request(data any) (Request, error) {
	msgs, err := p.Messages(data)
	if err != nil {
		return Request{}, err
	}
	return Request{Messages: msgs, Schema: p.Schema, SchemaName: p.Name}, nil
}
