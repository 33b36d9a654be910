// Ads module.
