import { useEffect } from 'react';
import { useParams, useSearch } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { Spinner } from '../../ui/Spinner.tsx';

/** `/redirect/<path>`: lands on `/<path>` again, which re-mounts the view (the refresh helper). */
export default function Redirect() {
  const params = useParams<{ '*': string }>();
  const search = useSearch();
  useEffect(() => {
    const path = `/${params['*'] ?? ''}`.replace(/^\/+/, '/');
    navigate(`${path}${search ? `?${search}` : ''}`, { replace: true });
  }, [params, search]);
  return <Spinner />;
}
