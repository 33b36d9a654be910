// Which VMAP breaks carry a non-VAST response (`<vmap:CustomAdData templateType>`): native breaks the app plays itself.

extension VMAPAdBreak {
    /// The `templateType` of the break's `<vmap:CustomAdData>`, lowercased; nil for any other source.
    public var customTemplateType: String? {
        guard case .customAdData(_, let type)? = adSource?.content else { return nil }
        return type?.lowercased()
    }

    /// Whether the break holds `<CustomAdData>` of one of `types` (lowercased): the app's, not the VAST loader's.
    func isAppBreak(_ types: Set<String>) -> Bool {
        guard !types.isEmpty, let t = customTemplateType else { return false }
        return types.contains(t)
    }
}
