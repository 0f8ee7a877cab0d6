package ocrtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"strings"
)

// ChatImages decodes a chat completion request as a vision OCR client
// sends it (OpenAI's shape) and returns its model and the PNG images, sent
// as data URLs, of its last message; a part that is not a PNG data URL, or
// whose data is not a PNG, is left out.
func ChatImages(r *http.Request) (model string, images []image.Image) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	if len(req.Messages) == 0 {
		return req.Model, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &parts)
	for _, p := range parts {
		b64, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
		if !ok {
			continue
		}
		data, _ := base64.StdEncoding.DecodeString(b64)
		if img, err := png.Decode(bytes.NewReader(data)); err == nil {
			images = append(images, img)
		}
	}
	return req.Model, images
}

// ChatAnswer writes a chat completion whose one choice's message is text,
// finished ("stop"), with the usage given.
func ChatAnswer(w http.ResponseWriter, text string, promptTokens, completionTokens int) {
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": promptTokens, "completion_tokens": completionTokens},
	})
}
