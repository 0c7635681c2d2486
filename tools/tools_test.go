package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
)

func todoWriteDefinition(t *testing.T) Definition {
	t.Helper()
	defs := Definitions()
	if len(defs) != 1 || defs[0].Name != contract.ToolTodoWrite {
		t.Fatalf("definitions %+v, want exactly %q", defs, contract.ToolTodoWrite)
	}
	return defs[0]
}

func schemaOf(t *testing.T) map[string]any {
	t.Helper()
	def := todoWriteDefinition(t)
	if !json.Valid(def.Parameters) {
		t.Fatalf("parameters are not valid JSON: %s", def.Parameters)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

func TestTodoWriteSchemaMatchesTodoPackage(t *testing.T) {
	schema := schemaOf(t)
	if schema["type"] != "object" || schema["additionalProperties"] != false {
		t.Fatalf("top level: %v", schema)
	}
	if got := schema["required"]; !reflect.DeepEqual(got, []any{"todos"}) {
		t.Fatalf("top-level required %v", got)
	}
	todos := schema["properties"].(map[string]any)["todos"].(map[string]any)
	if todos["type"] != "array" {
		t.Fatalf("todos: %v", todos)
	}
	item := todos["items"].(map[string]any)
	if item["type"] != "object" || item["additionalProperties"] != false {
		t.Fatalf("item: %v", item)
	}
	// The item keys are the JSON names of todo.Item's fields, all required.
	var want []string
	rt := reflect.TypeFor[todo.Item]()
	for i := range rt.NumField() {
		want = append(want, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	var required []string
	for _, k := range item["required"].([]any) {
		required = append(required, k.(string))
	}
	props := item["properties"].(map[string]any)
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(want)
	slices.Sort(required)
	slices.Sort(keys)
	if !slices.Equal(required, want) || !slices.Equal(keys, want) {
		t.Fatalf("item required %v properties %v, want %v", required, keys, want)
	}
	content := props["content"].(map[string]any)
	if content["type"] != "string" || content["minLength"] != float64(1) {
		t.Fatalf("content: %v", content)
	}
	status := props["status"].(map[string]any)
	var enum []todo.Status
	for _, s := range status["enum"].([]any) {
		enum = append(enum, todo.Status(s.(string)))
	}
	if !slices.Equal(enum, []todo.Status{todo.Pending, todo.InProgress, todo.Completed}) {
		t.Fatalf("status enum %v", enum)
	}
}

func TestDescriptionSaysTheWholeListIsSent(t *testing.T) {
	d := todoWriteDefinition(t).Description
	for _, want := range []string{"REPLACES", "ENTIRE list", "pending", "in_progress", "completed", "Any number of items may be in_progress", "Keep the list current"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q", want)
		}
	}
}

func TestDefinitionsAreCopies(t *testing.T) {
	a := Definitions()
	a[0].Parameters[0] = 'X'
	if b := Definitions(); b[0].Parameters[0] != '{' {
		t.Fatal("mutating one result changed the next one")
	}
}

// validate checks v against the subset of JSON Schema the tool uses. It is
// enough to show the schema and todo.Parse agree on what they accept.
func validate(schema map[string]any, v any) bool {
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		return false
	}
	switch schema["type"] {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		props, _ := schema["properties"].(map[string]any)
		for _, k := range schema["required"].([]any) {
			if _, ok := obj[k.(string)]; !ok {
				return false
			}
		}
		for k, val := range obj {
			sub, known := props[k].(map[string]any)
			if !known {
				if schema["additionalProperties"] == false {
					return false
				}
				continue
			}
			if !validate(sub, val) {
				return false
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return false
		}
		for _, el := range arr {
			if !validate(schema["items"].(map[string]any), el) {
				return false
			}
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if minLen, ok := schema["minLength"].(float64); ok && float64(utf8.RuneCountInString(s)) < minLen {
			return false
		}
	}
	return true
}

func TestSchemaAgreesWithParse(t *testing.T) {
	schema := schemaOf(t)
	cases := []struct {
		raw      string
		accepted bool // by both; the rules only Parse can check are left out
	}{
		{`{"todos":[]}`, true},
		{`{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Ship","status":"in_progress"}]}`, true},
		{string(todotest.ListJSON(20)), true},
		{`{}`, false},
		{`{"todos":{}}`, false},
		{`{"todos":[],"extra":1}`, false},
		{`{"todos":["x"]}`, false},
		{`{"todos":[{"content":"a","status":"pending","id":1}]}`, false},
		{`{"todos":[{"content":"","status":"pending"}]}`, false},
		{`{"todos":[{"content":5,"status":"pending"}]}`, false},
		{`{"todos":[{"content":"a"}]}`, false},
		{`{"todos":[{"status":"pending"}]}`, false},
		{`{"todos":[{"content":"a","status":"done"}]}`, false},
	}
	for _, tc := range cases {
		var v any
		if err := json.Unmarshal([]byte(tc.raw), &v); err != nil {
			t.Fatal(err)
		}
		_, err := todo.Parse([]byte(tc.raw), todo.Limits{})
		if (err == nil) != tc.accepted {
			t.Errorf("%s: Parse error %v, want accepted=%v", tc.raw, err, tc.accepted)
		}
		if validate(schema, v) != tc.accepted {
			t.Errorf("%s: schema accepted=%v, want %v", tc.raw, !tc.accepted, tc.accepted)
		}
	}
}
