import * as api from './api.ts';
import { ConfirmButton } from './ConfirmButton.tsx';

interface Props {
  readonly accounts: readonly api.AccountEntry[];
  readonly token: string;
  readonly refresh: () => void;
  readonly report: (error: unknown) => void;
}

export function AccountsTable({ accounts, token, refresh, report }: Props) {
  const act = (apiKey: string, action: 'disable' | 'enable' | 'revoke-tokens') => async () => {
    try {
      await api.accountAction(token, apiKey, action);
    } catch (error) {
      report(error);
    }
    refresh();
  };
  return (
    <section>
      <h2>Accounts</h2>
      <table data-testid="accounts">
        <thead>
          <tr>
            <th>API key</th>
            <th>Label</th>
            <th>Role</th>
            <th>Status</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((account) => (
            <tr key={account.api_key} data-testid={`account-${account.api_key}`} data-status={account.status}>
              <td>
                <code>{account.api_key}</code>
              </td>
              <td>{account.label ?? ''}</td>
              <td>{account.role}</td>
              <td data-testid="account-status">{account.status}</td>
              <td>
                {account.status === 'active' ? (
                  <ConfirmButton
                    testId="account-disable"
                    label="Disable"
                    question="Refuse its tokens and logins?"
                    onConfirm={act(account.api_key, 'disable')}
                  />
                ) : (
                  <ConfirmButton
                    testId="account-enable"
                    label="Enable"
                    question="Let it log in again?"
                    onConfirm={act(account.api_key, 'enable')}
                  />
                )}{' '}
                <ConfirmButton
                  testId="account-revoke"
                  label="Revoke tokens"
                  question="Invalidate every token it holds?"
                  onConfirm={act(account.api_key, 'revoke-tokens')}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
