import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { SecretField } from '../../../components/SecretField';
import { usePageTitle } from '../../../components/usePageTitle';
import { formatTime } from '../../../lib/format';
import { useSession } from '../../../lib/session';
import { useAddMember } from '../api/add-member';
import { useMembers, type Member } from '../api/list-members';
import { useRemoveMember } from '../api/remove-member';

export function MembersPage() {
  usePageTitle('Members');
  const session = useSession();
  const members = useMembers();
  const add = useAddMember();
  const remove = useRemoveMember();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Member['role']>('member');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ email, role }, { onSuccess: () => setEmail('') });
  };

  return (
    <main>
      <h1>Members</h1>
      <section aria-labelledby="add-heading" className="card">
        <h2 id="add-heading">Add a member</h2>
        <p>Members work with templates, documents and bulk jobs; admins also manage API keys, webhooks and members.</p>
        <form onSubmit={submit} className="row">
          <label className="grow">
            Email
            <input
              type="email"
              required
              autoComplete="off"
              value={email}
              onChange={(e) => {
                setEmail(e.target.value);
                if (add.isError) add.reset();
              }}
            />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as Member['role'])}>
              <option value="member">Member</option>
              <option value="admin">Admin</option>
            </select>
          </label>
          <button type="submit" disabled={add.isPending}>
            Add member
          </button>
        </form>
        <ErrorAlert error={add.error} title="The member was not added" />
        {add.data ? (
          <SecretField
            label="Password"
            value={add.data.password}
            note={`Copy it and give it to ${add.data.email}; it will not be shown again. They can change it under Account.`}
          />
        ) : null}
      </section>

      <ErrorAlert error={members.error} />
      <ErrorAlert error={remove.error} title="The member was not removed" />
      {members.data ? (
        <div className="scroll-x" tabIndex={0}>
          <table className="list">
            <caption>Members of {session.data?.organization.name}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.items.map((member) => (
                <tr key={member.id}>
                  <th scope="row" data-label="Email">
                    {member.email}
                  </th>
                  <td data-label="Role">{member.role}</td>
                  <td data-label="Added">{formatTime(member.created_at)}</td>
                  <td data-label="Actions">
                    {member.id === session.data?.user.id ? (
                      'you'
                    ) : (
                      // The email is visible-to-readers text, not an aria-label: getByLabel('Email') must find only the field.
                      <button type="button" className="danger" onClick={() => remove.mutate(member.id)}>
                        Remove<span className="visually-hidden"> {member.email}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </main>
  );
}
