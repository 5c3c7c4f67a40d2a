/** What is wrong with a value, every message a line; the input names it (aria-describedby) by `id`. */
export function FieldError({ id, messages }: { id: string; messages: readonly string[] }) {
  return (
    <div id={id} class="field-error">
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  );
}
