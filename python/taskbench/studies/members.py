"""Which systems a study compares, and the role each plays there: the registry says so (an
entry's `studies = { imbalance = "tasks" }`), so that a study names roles, never systems, and a
new system joins a study in its own system.toml."""

from __future__ import annotations

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.registry import registry_entries


def members(study: str, roles: tuple[str, ...], systems) -> list[str]:
    """The names of `systems` (registry entries, in registry order) that have a role in
    `study`: by role in the order of `roles` (the study's table order), then in registry order.
    A role the study does not know is a mistake in that entry's file."""
    by_role: dict[str, list[str]] = {role: [] for role in roles}
    for system in systems:
        role = system.studies.get(study)
        if role is None:
            continue
        if role not in by_role:
            raise UserError(f"{system.folder / 'system.toml'}: system '{system.name}': study {study} has no role "
                            f"'{role}' (its roles: {', '.join(roles)})", EXIT_ENVIRONMENT)
        by_role[role].append(system.name)
    return [name for names in by_role.values() for name in names]


def roles_in(study: str) -> dict[str, str]:
    """{system: its role in `study`} of this checkout's registry: what a stored study's table
    and findings ask, since the systems it ran are stored by name only."""
    return {name: entry.studies[study] for name, entry in registry_entries().items() if study in entry.studies}
