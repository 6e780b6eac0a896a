import { api } from './api.js';
import { h, table } from './dom.js';

const ROLES = ['admin', 'implementer', 'supplier', 'household', 'regulator'];

export function mount(el) {
  const error = h('p', { class: 'error', role: 'alert' });
  const created = h('div');
  const list = h('div');
  const role = h(
    'select',
    { id: 'key-role' },
    ROLES.map((r) => h('option', { value: r }, r)),
  );
  const did = h('input', { id: 'key-did', placeholder: 'did:… (supplier, household, regulator)' });
  const label = h('input', { id: 'key-label', placeholder: 'who or what it is for' });

  async function load() {
    const { items } = await api('/v1/api-keys');
    list.replaceChildren(
      table(
        [
          ['id', (k) => k.id],
          ['role', (k) => k.role],
          ['label', (k) => k.label ?? ''],
          ['DID', (k) => k.did ?? ''],
          ['created', (k) => k.createdAt],
          ['state', (k) => (k.revokedAt ? `revoked ${k.revokedAt}` : 'active')],
          ['', (k) => (k.revokedAt ? '' : h('button', { 'data-revoke': k.id, onclick: () => revoke(k) }, 'Revoke'))],
        ],
        items,
        (k) => ({ 'data-key': k.id }),
      ),
    );
  }

  async function revoke(k) {
    if (!confirm(`Revoke key ${k.id} (${k.role}${k.label ? `, ${k.label}` : ''})? Its holder is refused from now on.`))
      return;
    try {
      await api(`/v1/api-keys/${encodeURIComponent(k.id)}`, { method: 'DELETE' });
      await load();
    } catch (err) {
      error.textContent = err.message;
    }
  }

  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = '';
        try {
          const body = { role: role.value };
          if (did.value.trim()) body.did = did.value.trim();
          if (label.value.trim()) body.label = label.value.trim();
          const k = await api('/v1/api-keys', { method: 'POST', body });
          created.replaceChildren(
            h('p', {}, `Key ${k.id} (${k.role}) created. Copy it now: it is shown once.`),
            h('p', { class: 'secret', id: 'new-key' }, k.key),
            ...(k.warnings ?? []).map((w) => h('p', { class: 'error' }, w)),
          );
          label.value = '';
          did.value = '';
          await load();
        } catch (err) {
          error.textContent = err.message;
        }
      },
    },
    h('label', {}, 'Role', role),
    h('label', {}, 'DID', did),
    h('label', {}, 'Label', label),
    h('button', { type: 'submit' }, 'Create key'),
  );
  el.append(h('h1', {}, 'API keys'), error, form, created, list);
  load().catch((err) => (error.textContent = err.message));
  return () => created.replaceChildren();
}
