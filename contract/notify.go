package contract

// Sessions notify subscribed webhooks of accepted changes; README's "Get
// notified" and "Contract" document the payloads.
const (
	// UpdateSubscribe takes a notify.Subscriber and returns the session's
	// subscribers; the same id again replaces that subscriber.
	UpdateSubscribe = "subscribe"
	// UpdateUnsubscribe takes {"id":"..."} and returns the subscribers left;
	// that subscriber's pending notifications are dropped.
	UpdateUnsubscribe = "unsubscribe"
	// QuerySubscribers returns the subscribers with what each has pending.
	QuerySubscribers = "subscribers"

	// ActivityDeliverNotifications sends a subscriber a batch of
	// notifications, one POST each, in order.
	ActivityDeliverNotifications = "DeliverNotifications"
	// ActivityDeliverNotification sends one; sessions started before
	// batches still use it.
	ActivityDeliverNotification = "DeliverNotification"
)
