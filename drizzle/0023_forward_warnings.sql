-- The warning of a conversion's forward to its traffic source: sent with placeholders svc could not fill.
ALTER TABLE `conversions` ADD `forward_warning` text;
