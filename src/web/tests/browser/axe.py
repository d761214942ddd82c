"""axe-core in the page: the serious and critical violations, readable in an assertion."""

from playwright.sync_api import Page

SEVERE = ("serious", "critical")


def severe_violations(page: Page, axe_source: str) -> list[str]:
    """Each serious or critical violation of the loaded page as "rule: selectors"."""
    # Evaluated, not added as an inline <script>: the page's policy refuses inline scripts.
    page.evaluate(axe_source)
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        f"{violation['id']} ({violation['impact']}): "
        + ", ".join(str(node["target"]) for node in violation["nodes"])
        for violation in violations
        if violation["impact"] in SEVERE
    ]
