import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { roleName } from '../../lib/names.ts';
import { toast } from '../../lib/notify.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { CheckField } from '../../ui/fields.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { Spinner } from '../../ui/Spinner.tsx';

interface Props {
  role: Contexts['role'];
  close: (result?: unknown) => void;
}

function GroupBox({
  checked,
  indeterminate,
  label,
  onChange,
  disabled,
}: {
  checked: boolean;
  indeterminate: boolean;
  label: string;
  onChange: (v: boolean) => void;
  disabled: boolean;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return (
    <label className="check group-check">
      <input
        ref={ref}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
      />
      {label}
    </label>
  );
}

/** A role's permissions as a tree of the endpoint catalogue: groups, then endpoints. */
export default function PermissionTree({ role, close }: Props) {
  const t = useT();
  const editable = allows($grants.get(), [endpoints.role.setPermissions]);
  const catalogue = useQuery({
    queryKey: ['role-permissions', role.id],
    queryFn: () => api(endpoints.role.permissions, { id: role.id }),
  });
  const [granted, setGranted] = useState<Set<string> | null>(null);
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (catalogue.data && granted === null) setGranted(new Set(catalogue.data.granted ?? role.perms));
  }, [catalogue.data, granted, role.perms]);

  const groups = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return (catalogue.data?.groups ?? [])
      .map((g) => ({
        ...g,
        permissions: q
          ? g.permissions.filter((p) =>
              `${p.permission} ${p.description} ${g.title}`.toLowerCase().includes(q),
            )
          : g.permissions,
      }))
      .filter((g) => g.permissions.length > 0);
  }, [catalogue.data, filter]);

  if (!catalogue.data || !granted) {
    return (
      <Modal title={t('commands.role.permissions.title')} onClose={() => close()} variant="sheet">
        <Spinner />
      </Modal>
    );
  }
  const all = granted.has('*');
  const toggle = (perms: string[], on: boolean) => {
    const next = new Set(granted);
    for (const p of perms) on ? next.add(p) : next.delete(p);
    setGranted(next);
  };
  const save = async () => {
    setBusy(true);
    try {
      await api(endpoints.role.setPermissions, { id: role.id, perms: [...granted] });
      toast('success', t('app.saved'));
      close(true);
    } catch {
      // already shown by the API client
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title={`${t('commands.role.permissions.title')}: ${roleName(role.name)}`}
      onClose={() => close()}
      variant="sheet"
    >
      <div className="perm-toolbar">
        <CheckField
          label={t('screens.role.allPermissions')}
          checked={all}
          disabled={!editable}
          onChecked={(on) => toggle(['*'], on)}
        />
        <input
          type="search"
          className="perm-filter"
          aria-label={t('screens.role.filterPermissions')}
          placeholder={t('screens.role.filterPermissions')}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      </div>
      <div className="perm-tree">
        {groups.map((g) => {
          const perms = g.permissions.map((p) => p.permission);
          const count = perms.filter((p) => all || granted.has(p)).length;
          return (
            <fieldset key={g.group} className="perm-group">
              <legend className="sr-only">{g.title}</legend>
              <GroupBox
                label={`${g.title} (${count}/${perms.length})`}
                checked={count === perms.length}
                indeterminate={count > 0 && count < perms.length}
                disabled={!editable || all}
                onChange={(v) => toggle(perms, v)}
              />
              <div className="perm-items">
                {g.permissions.map((p) => (
                  <label key={p.permission} className="check perm-item">
                    <input
                      type="checkbox"
                      checked={all || granted.has(p.permission)}
                      disabled={!editable || all}
                      onChange={(e) => toggle([p.permission], e.target.checked)}
                    />
                    <span className="perm-description">{p.description}</span>
                    <code className="perm-code">{p.permission}</code>
                  </label>
                ))}
              </div>
            </fieldset>
          );
        })}
      </div>
      <div className="form-actions">
        <button type="button" className="button" onClick={() => close()}>
          {t('app.cancel')}
        </button>
        {editable && (
          <button type="button" className="button primary" disabled={busy} onClick={() => void save()}>
            {t('app.save')}
          </button>
        )}
      </div>
    </Modal>
  );
}
