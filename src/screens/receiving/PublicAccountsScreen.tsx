import { AccountsPage } from './accounts.tsx';

/** The platform's own bank accounts payers pay into. */
export default function PublicAccountsScreen() {
  return <AccountsPage kind="public" />;
}
