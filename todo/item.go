// Package todo holds the agent's plan: the todo_write list, its strict
// validation and the contract payloads built from it.
package todo

// Status is the state of one plan item.
type Status string

// The three statuses the contract allows.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Item is one entry of the list, exactly as the model wrote it.
type Item struct {
	Content string `json:"content"`
	Status  Status `json:"status"`
}

// Counts summarises a list by status.
type Counts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"inProgress"`
	Completed  int `json:"completed"`
}

// Total is the number of items counted.
func (c Counts) Total() int { return c.Pending + c.InProgress + c.Completed }

// CountOf counts the items of a list by status.
func CountOf(items []Item) Counts {
	var c Counts
	for i := range items {
		switch items[i].Status {
		case Pending:
			c.Pending++
		case InProgress:
			c.InProgress++
		case Completed:
			c.Completed++
		}
	}
	return c
}
