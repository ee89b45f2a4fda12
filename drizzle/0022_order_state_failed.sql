-- Order states are the spec's (§3): a failed payment is `failed`, no longer `payment_failed`.
UPDATE orders SET status = 'failed' WHERE status = 'payment_failed';
