export default function NotFoundPage() {
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no page at this address. Go to the <a href="/">home page</a>.
      </p>
    </section>
  );
}
